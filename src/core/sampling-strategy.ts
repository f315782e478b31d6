import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { Backend } from "./backend.js";
import type { Context } from "./context.js";
import { InvalidLoopBudgetError } from "./errors/invalid-loop-budget-error.js";
import { defaultHookRegistry, type HookRegistry } from "./hooks.js";
import type { ModelOptions } from "./model-options.js";
import type { Requirement } from "./requirement.js";
import type { SampleActionType, SamplingResult } from "./sampling-result.js";
import { inApplicationSpan } from "./telemetry/application-span.js";
import { GenAi, SpanName, Tessera } from "./telemetry/gen-ai-conventions.js";

export interface SampleOptions<T = string> {
  /** Context to validate over; by default each sample is validated over its own post-generation context. */
  validationContext?: Context | null;
  /** Output format for structured output. */
  format?: z.ZodType<T>;
  modelOptions?: ModelOptions;
  /** Whether tool calls are used during sampling. */
  toolCalls?: boolean;
  /** Show progress on stderr. */
  showProgress?: boolean;
  signal?: AbortSignal;
}

/** What doSample receives on top of sample()'s arguments. */
export interface SampleRun<T = string> extends SampleOptions<T> {
  /** Identifies this run in hooks and logs. */
  samplingId: string;
  /** The budget after samplingLoopStart hooks (a positive integer). */
  loopBudget: number;
  /** The requirements to check: the strategy's own when set, else the call's. */
  requirements: Requirement[];
}

export interface SamplingStrategyOptions {
  /** Most generate/validate cycles (default 1). */
  loopBudget?: number;
  /** Requirements checked on every sample; when set they override the per-call ones. */
  requirements?: Requirement[] | null;
  hooks?: HookRegistry;
}

/**
 * Base of every sampling algorithm. sample() owns the lifecycle (sampling id, loop start/end hooks, budget
 * check); subclasses implement doSample().
 */
export abstract class SamplingStrategy {
  loopBudget: number;
  requirements: Requirement[] | null;
  readonly hooks: HookRegistry;

  constructor(options: SamplingStrategyOptions = {}) {
    this.loopBudget = options.loopBudget ?? 1;
    this.requirements = options.requirements ?? null;
    this.hooks = options.hooks ?? defaultHookRegistry;
  }

  /**
   * Mint a sampling id, fire samplingLoopStart (which may change the budget), run doSample, and fire
   * samplingLoopEnd on every exit path. A non-positive budget throws InvalidLoopBudgetError.
   */
  async sample<T = string>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    requirements: Requirement[] | null = null,
    options: SampleOptions<T> = {},
  ): Promise<SamplingResult<T>> {
    const requirementCount = (this.requirements ?? requirements ?? []).length;
    return inApplicationSpan(
      SpanName.sampling,
      {
        [Tessera.samplingStrategyType]: this.constructor.name,
        [Tessera.samplingLoopBudget]: this.loopBudget,
        [Tessera.samplingRequirementCount]: requirementCount,
        [GenAi.requestModel]: backend.modelId,
      },
      async (span) => {
        const result = await this.#sample(action, context, backend, requirements, options);
        const chosen = result.sampleGenerations.length > 0 ? result.result : null;
        span.setAttributes({
          [Tessera.samplingSuccess]: result.success,
          [Tessera.samplingIterationsUsed]: result.sampleGenerations.length,
          ...(result.success
            ? {}
            : {
                [Tessera.samplingFailureReason]: `budget exhausted after ${result.sampleGenerations.length} sample(s)`,
              }),
          ...(chosen?.generation.finishReasons
            ? { [GenAi.responseFinishReasons]: chosen.generation.finishReasons }
            : {}),
        });
        return result;
      },
    );
  }

  async #sample<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    requirements: Requirement[] | null,
    options: SampleOptions<T>,
  ): Promise<SamplingResult<T>> {
    const samplingId = randomUUID();
    const changes = await this.hooks.emit("samplingLoopStart", {
      samplingId,
      strategy: this,
      action,
      context,
      loopBudget: this.loopBudget,
    });
    let result: SamplingResult<T> | null = null;
    let failure: unknown = null;
    try {
      const loopBudget = changes.loopBudget ?? this.loopBudget;
      if (!Number.isInteger(loopBudget) || loopBudget <= 0) throw new InvalidLoopBudgetError(loopBudget);
      result = await this.doSample(action, context, backend, {
        ...options,
        samplingId,
        loopBudget,
        requirements: this.requirements ?? requirements ?? [],
      });
      return result;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      await this.hooks.emit("samplingLoopEnd", {
        samplingId,
        strategy: this,
        result: result as SamplingResult<unknown> | null,
        error: failure,
      });
    }
  }

  /** The algorithm itself: generate, validate, repair, select, within run.loopBudget cycles. */
  protected abstract doSample<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
  ): Promise<SamplingResult<T>>;
}
