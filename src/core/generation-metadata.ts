import type { LogitsTrace } from "./logits-trace.js";

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** Where the time of one generation went, in milliseconds. */
export interface GenerationTimings {
  tokenizeMs: number | null;
  prefillMs: number | null;
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
  /** Milliseconds from the request to the first chunk of output; null for non-streaming. */
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
