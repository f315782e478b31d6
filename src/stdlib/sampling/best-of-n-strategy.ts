import type { Backend } from "../../core/backend.js";
import type { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import { mergeModelOptions } from "../../core/model-options.js";
import type { SampleRun } from "../../core/sampling-strategy.js";
import { MissingLogitsError } from "../errors/missing-logits-error.js";
import { meanTokenLogprob } from "./mean-token-logprob.js";
import type { DrawnSample } from "./sampling-history.js";
import { ScoringSamplingStrategy, type ScoringSamplingStrategyOptions } from "./scoring-sampling-strategy.js";

/** Scores one sample; higher is better. */
export type SampleScore = (thunk: ComputedModelOutputThunk<unknown>) => number | Promise<number>;

export interface BestOfNStrategyOptions extends ScoringSamplingStrategyOptions {
  /** Default: the mean token log-probability (the strategy asks the backend for top-1 logprobs). */
  score?: SampleScore | null;
}

/**
 * Draw n samples in one batch and keep the best scoring one that passes every requirement (or the best
 * overall, marked as a failure, when none passes). Ties go to the earliest sample.
 */
export class BestOfNStrategy extends ScoringSamplingStrategy {
  readonly score: SampleScore | null;

  constructor(options: BestOfNStrategyOptions = {}) {
    super(options);
    this.score = options.score ?? null;
  }

  protected override prepareRun<T>(run: SampleRun<T>, backend: Backend): SampleRun<T> {
    if (this.score !== null) return run;
    if (!backend.capabilities.logits && !backend.capabilities.rawLogits)
      throw new MissingLogitsError(null, backend.modelId);
    const logitsOption = backend.capabilities.logits ? { logits: 1 } : { rawLogits: 1 };
    // The caller's own logits request (say "full") wins; top-1 is the cheapest that carries logprobs.
    return { ...run, modelOptions: mergeModelOptions(logitsOption, run.modelOptions) };
  }

  protected async scoreCandidates<T>(candidates: Array<DrawnSample<T>>, backend: Backend): Promise<number[]> {
    const scores: number[] = [];
    for (const [index, candidate] of candidates.entries()) {
      const thunk = candidate.thunk as ComputedModelOutputThunk<unknown>;
      if (this.score !== null) {
        scores.push(await this.score(thunk));
        continue;
      }
      const logprob = meanTokenLogprob(thunk);
      if (logprob === null) throw new MissingLogitsError(index, backend.modelId);
      scores.push(logprob);
    }
    return scores;
  }
}
