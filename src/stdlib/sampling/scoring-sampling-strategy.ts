import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import type { SampleActionType, SamplingResult } from "../../core/sampling-result.js";
import type { SampleRun } from "../../core/sampling-strategy.js";
import { InvalidSampleCountError } from "../errors/invalid-sample-count-error.js";
import { uniqueRequirements } from "../requirements/requirement-helpers.js";
import {
  BaseSamplingStrategy,
  type BaseSamplingStrategyOptions,
  type RepairRequest,
  type RepairResult,
} from "./base-sampling-strategy.js";
import { allPassed, type DrawnSample, SamplingHistory } from "./sampling-history.js";
import { ScoredSamplingResult } from "./scored-sampling-result.js";

export interface ScoringSamplingStrategyOptions
  extends Omit<BaseSamplingStrategyOptions, "concurrencyBudget"> {
  /** Samples drawn per round, all in one batch (default 8). */
  n?: number;
}

/**
 * Draw n samples together, validate every one, and choose by score: among the samples that passed every
 * requirement when any did (success), else among all (failure). Ties go to the earliest sample, so the
 * choice is deterministic. With loopBudget > 1, rounds of n repeat the same action while none passed.
 */
export abstract class ScoringSamplingStrategy extends BaseSamplingStrategy {
  readonly n: number;

  constructor(options: ScoringSamplingStrategyOptions = {}) {
    const n = options.n ?? 8;
    if (!Number.isInteger(n) || n < 1) throw new InvalidSampleCountError(new.target.name, n);
    super({ ...options, concurrencyBudget: n });
    this.n = n;
  }

  /** Scores of `candidates` (aligned with it); higher is better. */
  protected abstract scoreCandidates<T>(
    candidates: Array<DrawnSample<T>>,
    backend: Backend,
  ): Promise<number[]>;

  /** Options this strategy needs from the backend (BestOfN asks for logprobs). */
  protected prepareRun<T>(run: SampleRun<T>, _backend: Backend): SampleRun<T> {
    return run;
  }

  protected repair<T>(request: RepairRequest<T>): RepairResult<T> {
    return { action: request.originalAction, context: request.originalContext };
  }

  protected selectFromFailure<T>(_history: SamplingHistory<T>): number {
    return 0;
  }

  protected override async doSample<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    originalRun: SampleRun<T>,
  ): Promise<SamplingResult<T>> {
    this.checkContext(context);
    const run = this.prepareRun(originalRun, backend);
    const requirements = uniqueRequirements(run.requirements);
    const history = new SamplingHistory<T>();
    const progress = this.startProgress(run, run.loopBudget * this.n);
    try {
      for (let round = 0; round < run.loopBudget && history.passingIndices().length === 0; round += 1) {
        run.signal?.throwIfAborted();
        const samples = await this.drawSamples(action, context, backend, run, this.n);
        for (const sample of samples) {
          const index = await this.recordSample(sample, requirements, backend, run, history);
          progress.advance(allPassed(history.validations[index]!));
        }
      }
      const passing = history.passingIndices();
      const candidateIndices = passing.length > 0 ? passing : history.generations.map((_, index) => index);
      const candidates = candidateIndices.map((index) => ({
        thunk: history.generations[index]!,
        context: history.contexts[index]!,
        action: history.actions[index]!,
      }));
      // A NaN score (a broken scorer) must never win, nor block a later candidate from winning.
      const candidateScores = (await this.scoreCandidates(candidates, backend)).map((score) =>
        Number.isNaN(score) ? Number.NEGATIVE_INFINITY : score,
      );
      const scores: Array<number | null> = history.generations.map(() => null);
      let best = 0;
      candidateIndices.forEach((historyIndex, position) => {
        scores[historyIndex] = candidateScores[position]!;
        // Strictly greater: the earliest of equal scores stays chosen.
        if (candidateScores[position]! > candidateScores[best]!) best = position;
      });
      const chosen = history.toResult(candidateIndices[best]!, passing.length > 0);
      return new ScoredSamplingResult<T>(
        {
          resultIndex: chosen.resultIndex,
          success: chosen.success,
          sampleGenerations: chosen.sampleGenerations,
          sampleValidations: chosen.sampleValidations,
          sampleActions: chosen.sampleActions,
          sampleContexts: chosen.sampleContexts,
        },
        scores,
      );
    } catch (error) {
      throw this.abortError(error, run, history);
    } finally {
      progress.stop();
    }
  }
}
