import type { Backend } from "../../core/backend.js";
import type { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import { mergeModelOptions } from "../../core/model-options.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { SampleRun } from "../../core/sampling-strategy.js";
import { MissingLogitsError } from "../errors/missing-logits-error.js";
import { NonMonotoneScoreError } from "../errors/non-monotone-score-error.js";
import { meanTokenLogprob } from "./mean-token-logprob.js";
import type { PoolAttempt } from "./sample-pool.js";
import type { DrawnSample, SamplingHistory } from "./sampling-history.js";
import { ScoringSamplingStrategy, type ScoringSamplingStrategyOptions } from "./scoring-sampling-strategy.js";
import type { MonotoneSampleScore } from "./sum-token-logprob.js";

/** Scores one sample; higher is better. */
export type SampleScore = (thunk: ComputedModelOutputThunk<unknown>) => number | Promise<number>;

export interface BestOfNStrategyOptions extends ScoringSamplingStrategyOptions {
  /** Default: the mean token log-probability (the strategy asks the backend for top-1 logprobs). */
  score?: SampleScore | null;
  /**
   * Pooled runs: cancel a live sample as soon as its running score is below the best passing sample's, since
   * it can no longer be chosen. Needs a monotone score (sumTokenLogprob); NonMonotoneScoreError otherwise.
   */
  pruneLosers?: boolean;
}

/**
 * Draw n samples in one batch and keep the best scoring one that passes every requirement (or the best
 * overall, marked as a failure, when none passes). Ties go to the earliest sample.
 */
export class BestOfNStrategy extends ScoringSamplingStrategy {
  readonly score: SampleScore | null;
  readonly pruneLosers: boolean;

  constructor(options: BestOfNStrategyOptions = {}) {
    super(options);
    this.score = options.score ?? null;
    this.pruneLosers = options.pruneLosers ?? false;
    if (this.pruneLosers && !isMonotone(this.score)) throw new NonMonotoneScoreError();
  }

  protected override isLoser<T>(attempt: PoolAttempt<T>, history: SamplingHistory<T>): boolean {
    if (!this.pruneLosers || !isMonotone(this.score)) return false;
    const score = this.score as MonotoneSampleScore;
    let best = Number.NEGATIVE_INFINITY;
    for (const index of history.passingIndices()) best = Math.max(best, score(history.generations[index]!));
    // Strictly below: on a tie the earlier sample wins anyway, but a later one may still pass where it did not.
    return best > Number.NEGATIVE_INFINITY && score(attempt.thunk as ModelOutputThunk<unknown>) < best;
  }

  protected override prepareRun<T>(run: SampleRun<T>, backend: Backend): SampleRun<T> {
    // A custom score needs no logprobs, unless it says so (sumTokenLogprob does).
    if (this.score !== null && !(isMonotone(this.score) && this.score.needsLogits)) return run;
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

function isMonotone(score: SampleScore | null): score is SampleScore & MonotoneSampleScore {
  return score !== null && (score as Partial<MonotoneSampleScore>).monotone === "non-increasing";
}
