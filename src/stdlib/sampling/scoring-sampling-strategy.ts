import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import type { Requirement } from "../../core/requirement.js";
import type { SamplingReport } from "../../core/sampling-report.js";
import type { SampleActionType, SamplingResult } from "../../core/sampling-result.js";
import type { SampleRun } from "../../core/sampling-strategy.js";
import { InvalidSampleCountError } from "../errors/invalid-sample-count-error.js";
import { uniqueRequirements } from "../requirements/requirement-helpers.js";
import { streamingRequirements } from "../requirements/stream-validation.js";
import {
  BaseSamplingStrategy,
  type BaseSamplingStrategyOptions,
  type RepairRequest,
  type RepairResult,
} from "./base-sampling-strategy.js";
import type { PoolAttempt } from "./sample-pool.js";
import { allPassed, type DrawnSample, SamplingHistory } from "./sampling-history.js";
import { ScoredSamplingResult } from "./scored-sampling-result.js";

export interface ScoringSamplingStrategyOptions extends BaseSamplingStrategyOptions {
  /** Samples drawn per round, all in one batch (default 8). */
  n?: number;
  /**
   * Pooled runs: most samples live at once (default n), capped by the backend's parallel sequences. Round
   * runs draw n at once whatever this says.
   */
  concurrencyBudget?: number;
  /**
   * Run samples as a pool: a sample cancelled by a streaming fail is replaced by a fresh one, until n have
   * completed (and, with loopBudget > 1, until one passes), at most loopBudget × n started. Default: on
   * when a requirement checks samples while they stream (streamValidate), off otherwise.
   */
  pooled?: boolean;
}

/**
 * Draw n samples together, validate every one, and choose by score: among the samples that passed every
 * requirement when any did (success), else among all (failure). Ties go to the earliest sample, so the
 * choice is deterministic. With loopBudget > 1, rounds of n repeat the same action while none passed.
 */
export abstract class ScoringSamplingStrategy extends BaseSamplingStrategy {
  readonly n: number;
  readonly pooled: boolean | null;

  constructor(options: ScoringSamplingStrategyOptions = {}) {
    const n = options.n ?? 8;
    if (!Number.isInteger(n) || n < 1) throw new InvalidSampleCountError(new.target.name, n);
    super({ ...options, concurrencyBudget: options.concurrencyBudget ?? n });
    this.n = n;
    this.pooled = options.pooled ?? null;
  }

  /** Pooled runs: true cancels a live sample that can no longer be chosen (BestOfN with a monotone score). */
  protected isLoser<T>(_attempt: PoolAttempt<T>, _history: SamplingHistory<T>): boolean {
    return false;
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
    if (this.pooled ?? streamingRequirements(requirements).length > 0) {
      return this.#samplePooledAndChoose(action, context, backend, run, requirements);
    }
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
      return await this.choose(history, backend, null);
    } catch (error) {
      throw this.abortError(error, run, history);
    } finally {
      progress.stop();
    }
  }

  async #samplePooledAndChoose<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
    requirements: readonly Requirement[],
  ): Promise<SamplingResult<T>> {
    const history = new SamplingHistory<T>();
    const completed = (current: SamplingHistory<T>) =>
      current.generations.filter((thunk) => !thunk.cancelled).length;
    try {
      const { report } = await this.samplePooled({
        action,
        context,
        backend,
        run,
        requirements,
        history,
        concurrency: this.concurrencyBudget,
        attemptLimit: run.loopBudget * this.n,
        wantsMore: (current, live) => {
          // n completed samples; with loopBudget > 1 keep going (within the limit) until one passes.
          const needed = current.passingIndices().length > 0 ? this.n : this.n * run.loopBudget;
          return completed(current) + live < needed;
        },
        stopAfter: (current) => completed(current) >= this.n && current.passingIndices().length > 0,
        isLoser: (attempt, current) => this.isLoser(attempt, current),
      });
      return await this.choose(history, backend, report);
    } catch (error) {
      throw this.abortError(error, run, history);
    }
  }

  /**
   * Score the candidates and build the result: the samples that passed every requirement when any did,
   * else those that ran to their end, else all. Ties go to the earliest.
   */
  protected async choose<T>(
    history: SamplingHistory<T>,
    backend: Backend,
    report: SamplingReport | null,
  ): Promise<SamplingResult<T>> {
    if (history.length === 0) return history.toResult(0, false, report);
    const passing = history.passingIndices();
    const all = history.generations.map((_, index) => index);
    const finished = all.filter((index) => !history.generations[index]!.cancelled);
    const candidateIndices = passing.length > 0 ? passing : finished.length > 0 ? finished : all;
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
        report,
      },
      scores,
    );
  }
}
