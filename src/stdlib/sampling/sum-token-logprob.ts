import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { chosenLogprob } from "../requirements/token-signals.js";

/** A score that can only go down as a sample grows, so a running value bounds the final one from above. */
export interface MonotoneSampleScore {
  (thunk: ModelOutputThunk<unknown>): number;
  /** The score of the tokens so far: never below the final score of the same sample. */
  readonly monotone: "non-increasing";
  /** True when the backend must be asked for logprobs. */
  readonly needsLogits: boolean;
}

/**
 * The sum of the chosen tokens' log-probabilities (the log-probability of the whole text under the
 * sampler's distribution), from the processed trace or else the raw one; -Infinity without a trace. Every
 * term is at most 0, so the running sum only falls as tokens arrive: a sample whose running sum is already
 * below the best finished sample's can never overtake it. That is what lets best-of-n stop such samples
 * early (pruneLosers). A mean (meanTokenLogprob, the default score) is not monotone: one confident token
 * raises it again. Nor is any length-normalised score. The sum favours short answers.
 */
export const sumTokenLogprob: MonotoneSampleScore = Object.assign(
  (thunk: ModelOutputThunk<unknown>): number => {
    const trace = thunk.generation.logits ?? thunk.generation.rawLogits;
    if (trace === null) return Number.NEGATIVE_INFINITY;
    let sum = 0;
    for (const step of trace.steps) {
      const logprob = chosenLogprob(step);
      if (logprob !== null) sum += Math.min(0, logprob);
    }
    return sum;
  },
  { monotone: "non-increasing" as const, needsLogits: true },
);
