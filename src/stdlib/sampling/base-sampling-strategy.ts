import type { AbstractTool } from "../../core/abstract-tool.js";
import type { Backend, GenerateOptions } from "../../core/backend.js";
import { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import type { Context } from "../../core/context.js";
import { InvalidLoopBudgetError } from "../../core/errors/invalid-loop-budget-error.js";
import { mergeModelOptions } from "../../core/model-options.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { type Requirement, ValidationResult } from "../../core/requirement.js";
import type { SamplingReport } from "../../core/sampling-report.js";
import type { SampleActionType, SamplingResult } from "../../core/sampling-result.js";
import {
  type SampleOptions,
  type SampleRun,
  SamplingStrategy,
  type SamplingStrategyOptions,
} from "../../core/sampling-strategy.js";
import { inValidationSpan } from "../../core/telemetry/validation-span.js";
import { InvalidConcurrencyBudgetError } from "../errors/invalid-concurrency-budget-error.js";
import { SamplingAbortedError } from "../errors/sampling-aborted-error.js";
import { uniqueRequirements } from "../requirements/requirement-helpers.js";
import { streamingRequirements } from "../requirements/stream-validation.js";
import { generatedTokens, type PoolAttempt, runSamplePool } from "./sample-pool.js";
import {
  allPassed,
  type DrawnSample,
  passedCount,
  SamplingHistory,
  type Validations,
} from "./sampling-history.js";
import { SamplingProgress } from "./sampling-progress.js";

export interface BaseSamplingStrategyOptions extends SamplingStrategyOptions {
  /**
   * Samples drawn per round (default 1). Above 1 they are generated together: one generateFromRaw batch
   * when the context sends no history (parallel sequences on the local backend), else concurrent calls.
   */
  concurrencyBudget?: number;
  /** Show a progress bar on stderr (a call's showProgress overrides it). */
  showProgress?: boolean;
  /**
   * Check requirements that have streamValidate while each sample streams, cancelling it at the first fail
   * (default true). False leaves every check to the final text: the baseline of the strategy benchmark.
   */
  streamValidation?: boolean;
}

/** sample()'s options plus the tools offered to the model. */
export interface StrategySampleOptions<T = string> extends SampleOptions<T> {
  tools?: AbstractTool[];
}

/** What repair() sees: the original request and every sample so far. */
export interface RepairRequest<T> {
  originalAction: SampleActionType<T>;
  originalContext: Context;
  history: SamplingHistory<T>;
  /** The sample the repair builds on: of the last round, the one that passed most requirements (earliest on ties). */
  baseIndex: number;
  requirements: readonly Requirement[];
}

/** What the next round sends. */
export interface RepairResult<T> {
  action: SampleActionType<T>;
  context: Context;
}

/** What samplePooled() runs: one action in one context, as a pool. */
export interface PooledPlan<T> {
  action: SampleActionType<T>;
  context: Context;
  backend: Backend;
  run: SampleRun<T>;
  requirements: readonly Requirement[];
  history: SamplingHistory<T>;
  /** Live samples asked for (capped by the backend's parallel sequences). */
  concurrency: number;
  attemptLimit: number;
  /** Before each start, given the history and the live count: false starts no more. */
  wantsMore(history: SamplingHistory<T>, live: number): boolean;
  /** After each recorded completion: true ends the run (live samples are cancelled). */
  stopAfter(history: SamplingHistory<T>): boolean;
  /** On each delta of a live sample: true cancels it as one that can no longer win. */
  isLoser?(attempt: PoolAttempt<T>, history: SamplingHistory<T>): boolean;
}

/** What samplePooled() returns. */
export interface PooledRun<T> {
  history: SamplingHistory<T>;
  report: SamplingReport;
  attempts: ReadonlyArray<PoolAttempt<T>>;
}

/**
 * The loop every strategy shares: each round draws `concurrencyBudget` samples of the current action and
 * validates them in draw order; the first that passes every requirement ends the run with success (later
 * samples of that round are left out of the result). Otherwise repair() picks the next action and context,
 * up to `loopBudget` rounds; when all fail, selectFromFailure() picks the result. Requirements set on the
 * strategy replace the call's; duplicates are dropped keeping the first occurrence. Hooks: samplingLoopStart,
 * one samplingIteration per validated sample, samplingLoopEnd on every exit path (from sample()).
 */
export abstract class BaseSamplingStrategy extends SamplingStrategy {
  readonly concurrencyBudget: number;
  readonly showProgress: boolean;
  readonly streamValidation: boolean;

  constructor(options: BaseSamplingStrategyOptions = {}) {
    super(options);
    if (!Number.isInteger(this.loopBudget) || this.loopBudget < 1)
      throw new InvalidLoopBudgetError(this.loopBudget);
    const concurrencyBudget = options.concurrencyBudget ?? 1;
    if (!Number.isInteger(concurrencyBudget) || concurrencyBudget < 1) {
      throw new InvalidConcurrencyBudgetError(concurrencyBudget);
    }
    this.concurrencyBudget = concurrencyBudget;
    this.showProgress = options.showProgress ?? false;
    this.streamValidation = options.streamValidation ?? true;
  }

  /** The requirements checked while samples stream: none when streamValidation is off. */
  protected streamingRequirementsOf(requirements: readonly Requirement[]): Requirement[] {
    return this.streamValidation ? streamingRequirements(requirements) : [];
  }

  /**
   * Run samples of one action as a pool (see runSamplePool): `concurrency` live (capped by the backend's
   * parallel sequences, and the cap reported), at most `attemptLimit` started. Completed samples are
   * validated and recorded as they finish; samples cancelled by a streaming fail are recorded with that
   * failure as their validation; samples cancelled as losers or because the run stopped are left out of the
   * history but counted in the report. `stopAfter` decides, after each recorded completion, whether the run
   * has its answer. When the pool ends (also by an error or an abort) the history is put in start order, as
   * a round run draws it, so a choice that goes to the earliest sample does not depend on timing.
   */
  protected async samplePooled<T>(plan: PooledPlan<T>): Promise<PooledRun<T>> {
    const { action, context, backend, run, requirements, history } = plan;
    const streaming = this.streamingRequirementsOf(requirements);
    const concurrency = Math.min(plan.concurrency, backend.capabilities.parallelSequences);
    const options = generateOptionsOf({
      ...run,
      modelOptions: mergeModelOptions(
        ...streaming.map((requirement) => requirement.streamModelOptions),
        run.modelOptions,
      ),
    });
    const progress = this.startProgress(run, plan.attemptLimit);
    let attemptsUntilPass: number | null = null;
    let started = 0;
    // The attempt (start) index of each history entry, in the order they were recorded.
    const startIndices: number[] = [];
    try {
      const outcome = await runSamplePool<T>({
        concurrency,
        attemptLimit: plan.attemptLimit,
        streamingRequirements: streaming,
        generationContext: context,
        start: () => {
          run.signal?.throwIfAborted();
          // A fixed seed would draw the same sample every time: attempt k gets seed + k. Two runs with the
          // same seed then draw the same samples in the same order (the benchmark's paired runs).
          const seed = options.modelOptions?.seed;
          const attempt = started++;
          const attemptOptions =
            seed === undefined
              ? options
              : { ...options, modelOptions: { ...options.modelOptions, seed: seed + attempt } };
          return backend.generateFromContext<T>(action, context, attemptOptions);
        },
        wantsMore: (live) => plan.wantsMore(history, live),
        onCompleted: async (attempt) => {
          const sample = {
            thunk: ComputedModelOutputThunk.from(attempt.thunk),
            context: attempt.context,
            action,
          };
          const index = await this.recordSample(sample, requirements, backend, run, history);
          startIndices[index] = attempt.index;
          const passed = allPassed(history.validations[index]!);
          if (passed) attemptsUntilPass ??= attempt.index + 1;
          progress.advance(passed);
          return plan.stopAfter(history);
        },
        onFailedStreaming: async (attempt) => {
          const failure = attempt.streamFailure!;
          const sample = {
            thunk: ComputedModelOutputThunk.from(attempt.thunk),
            context: attempt.context,
            action,
          };
          const result = new ValidationResult(false, {
            reason: `cancelled while streaming: ${failure.result.reason ?? "the streaming check failed"}`,
          });
          const index = history.push(sample, [[failure.requirement, result]]);
          startIndices[index] = attempt.index;
          await this.hooks.emit("samplingIteration", {
            samplingId: run.samplingId,
            iteration: index,
            thunk: attempt.thunk as ModelOutputThunk<unknown>,
            validations: history.validations[index]!,
          });
          progress.advance(false);
        },
        ...(plan.isLoser === undefined ? {} : { isLoser: (attempt) => plan.isLoser!(attempt, history) }),
      });
      const attempts = outcome.attempts;
      const count = (state: string) => attempts.filter((attempt) => attempt.state === state).length;
      const tokens = attempts.map((attempt) => generatedTokens(attempt.thunk as ModelOutputThunk<unknown>));
      const report: SamplingReport = {
        requestedConcurrency: plan.concurrency,
        concurrency,
        concurrencyCap:
          concurrency < plan.concurrency
            ? `concurrencyBudget ${plan.concurrency} capped at the backend's ${concurrency} parallel sequences`
            : null,
        attemptLimit: plan.attemptLimit,
        attempts: attempts.length,
        completed: count("completed"),
        cancelledByValidation: count("failed-streaming"),
        cancelledAsLosers: count("loser"),
        abandoned: count("abandoned"),
        peakLive: outcome.peakLive,
        attemptsUntilPass,
        tokensGenerated: tokens.reduce((sum, value) => sum + value, 0),
        sampleTimings: attempts.map((attempt) => ({
          firstTokenMs: attempt.firstDeltaAt === null ? null : attempt.firstDeltaAt - attempt.startedAt,
          lastTokenMs: attempt.lastDeltaAt === null ? null : attempt.lastDeltaAt - attempt.startedAt,
        })),
        tokensDiscarded: attempts.reduce(
          (sum, attempt, index) => sum + (attempt.thunk.cancelled ? tokens[index]! : 0),
          0,
        ),
      };
      return { history, report, attempts };
    } finally {
      progress.stop();
      history.sortBy(startIndices);
    }
  }

  /** The next round's action and context after a round where nothing passed. */
  protected abstract repair<T>(request: RepairRequest<T>): RepairResult<T> | Promise<RepairResult<T>>;

  /** The index of the result to return when no sample passed. */
  protected abstract selectFromFailure<T>(history: SamplingHistory<T>): number;

  /** Throw when the strategy cannot work in this context (MultiTurnStrategy needs a chat). */
  protected checkContext(_context: Context): void {}

  protected async doSample<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
  ): Promise<SamplingResult<T>> {
    this.checkContext(context);
    const requirements = uniqueRequirements(run.requirements);
    const history = new SamplingHistory<T>();
    const progress = this.startProgress(run, run.loopBudget * this.concurrencyBudget);
    try {
      let next: RepairResult<T> = { action, context };
      let lastRoundStart = 0;
      for (let round = 0; round < run.loopBudget; round += 1) {
        run.signal?.throwIfAborted();
        if (round > 0) {
          const baseIndex = bestOfRange(history, lastRoundStart);
          next = await this.repair({
            originalAction: action,
            originalContext: context,
            history,
            baseIndex,
            requirements,
          });
        }
        lastRoundStart = history.length;
        const samples = await this.drawSamples(
          next.action,
          next.context,
          backend,
          run,
          this.concurrencyBudget,
        );
        for (const sample of samples) {
          const index = await this.recordSample(sample, requirements, backend, run, history);
          progress.advance(allPassed(history.validations[index]!));
          if (allPassed(history.validations[index]!)) return history.toResult(index, true);
        }
      }
      return history.toResult(this.selectFromFailure(history), false);
    } catch (error) {
      throw this.abortError(error, run, history);
    } finally {
      progress.stop();
    }
  }

  /** Validate a sample, add it to the history and fire samplingIteration; returns its index. */
  protected async recordSample<T>(
    sample: DrawnSample<T>,
    requirements: readonly Requirement[],
    backend: Backend,
    run: SampleRun<T>,
    history: SamplingHistory<T>,
  ): Promise<number> {
    const validations = await this.validateSample(sample, requirements, backend, run);
    const index = history.push(sample, validations);
    await this.hooks.emit("samplingIteration", {
      samplingId: run.samplingId,
      iteration: index,
      thunk: sample.thunk as ModelOutputThunk<unknown>,
      validations,
    });
    return index;
  }

  /** Each requirement in order, over the sample's own context (or the run's validation context plus the sample). */
  protected async validateSample<T>(
    sample: DrawnSample<T>,
    requirements: readonly Requirement[],
    backend: Backend,
    run: SampleRun<T>,
  ): Promise<Validations> {
    const target = run.validationContext ? run.validationContext.add(sample.thunk) : sample.context;
    return inValidationSpan(
      requirements.length,
      async () => {
        const validations: Validations = [];
        for (const requirement of requirements) {
          run.signal?.throwIfAborted();
          const result = await requirement.validate(backend, target, {
            ...(run.modelOptions === undefined ? {} : { modelOptions: run.modelOptions }),
            ...(run.signal === undefined ? {} : { signal: run.signal }),
          });
          validations.push([requirement, result]);
        }
        return validations;
      },
      (validations) => validations.map(([, result]) => result),
    );
  }

  /**
   * Generate `count` samples of `action` and wait for all of them. Several samples go to the backend together:
   * as one generateFromRaw batch when the context sends no history (nothing is lost by generating "raw"),
   * otherwise as concurrent generateFromContext calls. If one fails, the others are cancelled.
   */
  protected async drawSamples<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
    count: number,
  ): Promise<Array<DrawnSample<T>>> {
    const options = generateOptionsOf(run);
    let pending: Array<{ thunk: ModelOutputThunk<T>; context: Context }>;
    const view = context.viewForGeneration();
    if (count > 1 && view !== null && view.length === 0) {
      const thunks = await backend.generateFromRaw<T>(Array(count).fill(action), context, options);
      pending = thunks.map((thunk) => ({ thunk, context: context.add(action).add(thunk) }));
    } else {
      pending = await Promise.all(
        Array.from({ length: count }, () => backend.generateFromContext<T>(action, context, options)),
      );
    }
    const settled = await Promise.allSettled(pending.map(({ thunk }) => thunk.avalue()));
    const failed = settled.find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) {
      await Promise.all(pending.map(({ thunk }) => thunk.aclose()));
      throw (failed as PromiseRejectedResult).reason;
    }
    return pending.map(({ thunk, context: sampleContext }) => ({
      thunk: ComputedModelOutputThunk.from(thunk),
      context: sampleContext,
      action,
    }));
  }

  protected startProgress(run: SampleRun<unknown>, total: number): SamplingProgress {
    return SamplingProgress.start(run.showProgress ?? this.showProgress, total, this.constructor.name);
  }

  /** An error after the run's signal aborted becomes a SamplingAbortedError carrying the samples so far. */
  protected abortError<T>(error: unknown, run: SampleRun<T>, history: SamplingHistory<T>): unknown {
    if (run.signal?.aborted !== true || SamplingAbortedError.isInstance(error)) return error;
    const partial = history.toResult(Math.max(0, history.length - 1), false);
    return new SamplingAbortedError(partial as SamplingResult<unknown>, run.signal.reason);
  }
}

function generateOptionsOf<T>(run: SampleRun<T>): GenerateOptions<T> {
  const tools = (run as StrategySampleOptions<T>).tools;
  return {
    ...(run.format === undefined ? {} : { format: run.format }),
    ...(run.modelOptions === undefined ? {} : { modelOptions: run.modelOptions }),
    ...(run.signal === undefined ? {} : { signal: run.signal }),
    ...(tools === undefined || run.toolCalls === false ? {} : { tools }),
    labels: { samplingId: run.samplingId },
  };
}

/** From `start` to the end of the history: the sample that passed most requirements, earliest on ties. */
function bestOfRange<T>(history: SamplingHistory<T>, start: number): number {
  let best = start;
  for (let index = start + 1; index < history.length; index += 1) {
    if (passedCount(history.validations[index]!) > passedCount(history.validations[best]!)) best = index;
  }
  return best;
}
