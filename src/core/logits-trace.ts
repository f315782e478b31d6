/** One alternative token at a step, with its logit (when known) and its log-probability. */
export interface LogitsAlternative {
  token: number | null;
  text: string;
  /** The logit as the model (raw) or the sampler chain (processed) left it; null when only logprobs are known. */
  logit: number | null;
  logprob: number;
}

/** A stage of a sampler chain that can remove a candidate token (the "cut by" mark). */
export type SamplerStage = "logit-bias" | "penalties" | "grammar" | "top-k" | "typical-p" | "top-p" | "min-p";

/** The distribution at one generated token. */
export interface LogitsStep {
  /** Chosen token id; null when the provider reports text only. */
  token: number | null;
  text: string;
  /** The token's own bytes, when the provider knows them (a token may hold part of a character). */
  bytes?: Uint8Array;
  /** Log-probability of the chosen token under this distribution. */
  logprob: number | null;
  /** log(sum(exp(logits))), so any logit converts exactly to a logprob (logit - logSumExp). */
  logSumExp: number | null;
  /** The top alternatives, best first (empty when only full vectors were asked for). */
  top: LogitsAlternative[];
  /** The whole vocabulary's logits, when "full" was requested. Cut tokens are -Infinity in processed traces. */
  full?: Float32Array;
  /**
   * Raw traces with cut-by recording: per entry of `top`, the sampler stage that removed that candidate
   * before the selector drew, or null when it survived.
   */
  removedBy?: (SamplerStage | null)[];
}

/** Per-token logits of a generation: raw (LM head) or processed (after the sampler chain). */
export interface LogitsTrace {
  kind: "raw" | "processed";
  /** Where the numbers came from, for example "llama.cpp" or "openai-logprobs". */
  source: string;
  /** How many alternatives each step keeps; null means full vectors. */
  topK: number | null;
  vocabSize: number | null;
  steps: LogitsStep[];
}

/**
 * A step's full vector, unless there is none or it was given back with releaseLogitsRows: a released row
 * reads as empty, and iterating or copying it throws (its buffer is detached).
 */
export function readableFullVector(step: LogitsStep): Float32Array | undefined {
  return step.full !== undefined && step.full.length > 0 ? step.full : undefined;
}
