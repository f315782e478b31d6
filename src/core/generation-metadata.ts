import type { LogitsTrace } from "./logits-trace.js";

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/**
 * Where the time of one generation went, in milliseconds. The first six are adjacent stages of the first
 * token, each between two measured timestamps, so they add up to `ttfbMs`; a local backend fills them.
 */
export interface GenerationTimings {
  /** Before and between the stages below: load check, option checks, grammar, starting the native run. */
  setupMs: number | null;
  /** Rendering the chat template (the sandbox round trip included). */
  templateMs: number | null;
  tokenizeMs: number | null;
  /** From starting the native run until its prefill began (waiting for a sequence slot, the decode thread). */
  queueWaitMs: number | null;
  /** Prompt processing up to the first token, its sampling included (the native clock has no mark between). */
  prefillMs: number | null;
  /** From the first token sampled until the thunk received the backend's first stream part (ttfbMs). */
  firstDeliveryMs: number | null;
  /**
   * performance.now() when the backend took the request, the mark ttfbMs counts from: a caller in the same
   * process times what comes before it (its own call) and after the thunk's first part (its reader).
   */
  requestStartedAt?: number | null;
  decodeMs: number | null;
}

/** Backend execution metadata attached to every ModelOutputThunk; fields fill in as generation progresses. */
export class GenerationMetadata {
  /** Token usage; null until the backend knows it. */
  usage: TokenUsage | null = null;
  /** Requested model identifier. */
  model: string | null = null;
  /** Provider name, for example "llamacpp" or "openai". */
  provider: string | null = null;
  /** Source text of the template rendered for the action, if it has one. */
  promptTemplate: string | null = null;
  /** Variables the template was rendered with, after substitution. */
  promptTemplateVariables: Record<string, unknown> | null = null;
  /**
   * Milliseconds from the request to the first stream part the backend delivered (of any kind); written by
   * the thunk alone, so every backend means the same by it. Null until a part arrived.
   */
  ttfbMs: number | null = null;
  /** Milliseconds from the request to the first generated token (after any prompt processing). */
  timeToFirstTokenMs: number | null = null;
  /** Whether this generation streamed. */
  streaming = false;
  /** Model identifier reported on the response; may differ from `model`. */
  responseModel: string | null = null;
  /** Finish reason(s) reported on the response (typically one per choice), for example "stop" or "length". */
  finishReasons: string[] | null = null;
  /** Provider-assigned response identifier. */
  responseId: string | null = null;
  /** Per-token processed logits (after the sampler chain); null if not requested or unavailable. */
  logits: LogitsTrace | null = null;
  /** Per-token raw LM-head logits (before any processing); null if not requested or unavailable. */
  rawLogits: LogitsTrace | null = null;
  /** Where the time went; null when the backend does not measure it. */
  timings: GenerationTimings | null = null;
}
