import type { AbstractTool } from "../../core/abstract-tool.js";
import type { Backend, GenerateOptions } from "../../core/backend.js";
import { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import type { Context } from "../../core/context.js";
import { InvalidLoopBudgetError } from "../../core/errors/invalid-loop-budget-error.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Requirement } from "../../core/requirement.js";
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
