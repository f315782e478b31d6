import type { z } from "zod";
import type { AbstractTool } from "../../core/abstract-tool.js";
import type { Backend, GenerateOptions } from "../../core/backend.js";
import { CBlock } from "../../core/cblock.js";
import { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import type { Context } from "../../core/context.js";
import type { ModelOptions } from "../../core/model-options.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Requirement } from "../../core/requirement.js";
import type { SampleActionType, SamplingResult } from "../../core/sampling-result.js";
import type { SamplingStrategy } from "../../core/sampling-strategy.js";
import { StreamingWithStrategyError } from "../errors/streaming-with-strategy-error.js";
import { reqify } from "../requirements/requirement-helpers.js";
import type { StrategySampleOptions } from "../sampling/base-sampling-strategy.js";
import { RejectionSamplingStrategy } from "../sampling/rejection-sampling-strategy.js";
import { enforceContextType } from "./enforce-context-type.js";

export interface ActOptions<T = string> {
  /** How to sample; default none, or RejectionSamplingStrategy with loopBudget 2 when requirements are given. */
  strategy?: SamplingStrategy | null;
  /** Requirements the output is validated against (a strategy's own requirements replace these). */
  requirements?: ReadonlyArray<string | Requirement> | null;
  /** Structured output: the answer is constrained to (or validated against) this schema; parsedRepr holds it. */
  format?: z.ZodType<T>;
  modelOptions?: ModelOptions;
  /** Tools offered to the model; run the calls it makes with runToolCalls(). */
  tools?: AbstractTool[];
  signal?: AbortSignal;
  /** Progress bar on stderr while a strategy samples. */
  showProgress?: boolean;
  labels?: Record<string, string>;
  /**
   * Let the returned context (and every sample's context) be of another Context class than `context`.
   * By default a change throws ContextTypeMismatchError: a chat that became a simple context loses history.
   */
  allowContextTypeChange?: boolean;
}

export interface ActResult<T = string> {
  /** The computed output (the chosen sample when a strategy ran). */
  output: ComputedModelOutputThunk<T>;
  /** The context with the action and the output appended (failed attempts stay in samplingResult only). */
  context: Context;
  /** Every sample with its validations, when a strategy ran; null otherwise. */
  samplingResult: SamplingResult<T> | null;
}

export interface ActStreamResult<T = string> {
  /** Still being generated: iterate it (`for await`) or await output.avalue(). */
  output: ModelOutputThunk<T>;
  context: Context;
}

/** A string action is sent as a plain block. */
export type ActAction<T> = SampleActionType<T> | string;

/**
 * Run one action: generate (through a strategy when one is given or requirements are), wait for the output
 * and return it with the new context. With `awaitResult: false` the output comes back uncomputed so the
 * caller can stream it; that mode refuses strategies and requirements.
 */
export async function act<T = string>(
  action: ActAction<T>,
  context: Context,
  backend: Backend,
  options: ActOptions<T> & { awaitResult: false },
): Promise<ActStreamResult<T>>;
export async function act<T = string>(
  action: ActAction<T>,
  context: Context,
  backend: Backend,
  options?: ActOptions<T> & { awaitResult?: true },
): Promise<ActResult<T>>;
export async function act<T = string>(
  action: ActAction<T>,
  context: Context,
  backend: Backend,
  options: ActOptions<T> & { awaitResult?: boolean } = {},
): Promise<ActResult<T> | ActStreamResult<T>> {
  const span: SampleActionType<T> = typeof action === "string" ? new CBlock(action) : action;
  const requirements = options.requirements?.map(reqify) ?? null;
  const strategy =
    options.strategy ??
    (requirements !== null && requirements.length > 0
      ? new RejectionSamplingStrategy({ loopBudget: 2 })
      : null);

  if (strategy === null) {
    const { thunk, context: nextContext } = await backend.generateFromContext(
      span,
      context,
      generateOptions(options),
    );
    enforceContextType(context, [nextContext], options.allowContextTypeChange ?? false);
    if (options.awaitResult === false) return { output: thunk, context: nextContext };
    await thunk.avalue();
    return { output: ComputedModelOutputThunk.from(thunk), context: nextContext, samplingResult: null };
  }
  if (options.awaitResult === false) throw new StreamingWithStrategyError();
  const sampleOptions: StrategySampleOptions<T> = {
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.modelOptions === undefined ? {} : { modelOptions: options.modelOptions }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.showProgress === undefined ? {} : { showProgress: options.showProgress }),
    ...(options.tools === undefined ? {} : { tools: options.tools, toolCalls: true }),
  };
  const samplingResult = await strategy.sample(span, context, backend, requirements, sampleOptions);
  // Every sample's context, not only the chosen one: a strategy that switched types on any attempt is wrong.
  enforceContextType(context, samplingResult.sampleContexts, options.allowContextTypeChange ?? false);
  const output = samplingResult.result;
  return { output, context: context.add(span).add(output), samplingResult };
}

function generateOptions<T>(options: ActOptions<T>): GenerateOptions<T> {
  return {
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.modelOptions === undefined ? {} : { modelOptions: options.modelOptions }),
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.labels === undefined ? {} : { labels: options.labels }),
  };
}
