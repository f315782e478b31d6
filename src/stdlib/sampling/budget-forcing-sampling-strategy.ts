import type { Backend } from "../../core/backend.js";
import { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import type { Context } from "../../core/context.js";
import type { ModelOptions } from "../../core/model-options.js";
import type { SampleActionType } from "../../core/sampling-result.js";
import type { SampleRun } from "../../core/sampling-strategy.js";
import type { BaseSamplingStrategyOptions } from "./base-sampling-strategy.js";
import { RejectionSamplingStrategy } from "./rejection-sampling-strategy.js";
import type { DrawnSample } from "./sampling-history.js";
import { thinkBudgetForcing } from "./think-budget-forcing.js";

export interface BudgetForcingSamplingStrategyOptions
  extends Omit<BaseSamplingStrategyOptions, "concurrencyBudget"> {
  /** Tokens for the think block (default 4096). */
  thinkMaxTokens?: number;
  /** Tokens for the answer; null: unlimited (default). */
  answerMaxTokens?: number | null;
  /** Default "<think>". */
  startThinkToken?: string;
  /** Default "</think>". */
  endThinkToken?: string;
  /** Default "" (models such as Granite open their answer with "<response>"). */
  beginResponseToken?: string;
  /** Default "". */
  endResponseToken?: string;
  /** Appended to force more thinking, e.g. "\nWait"; default "": the budget is an upper bound only. */
  thinkWaitSuffix?: string;
  /** Appended before the answer pass, e.g. "\nThe final answer is:"; default "" (Mellea v0.7's). */
  answerSuffix?: string;
  /** Default "\\boxed{.*?}" (kept as in Mellea; its algorithm does not use it either). */
  answerRegex?: string;
  /** Overlays for the think passes and the answer pass (tessera's addition, say a grammar for the markup). */
  thinkModelOptions?: ModelOptions;
  answerModelOptions?: ModelOptions;
}

/**
 * Mellea's BudgetForcingSamplingStrategy: rejection sampling whose every sample is one thinkBudgetForcing
 * generation (think passes within thinkMaxTokens, then an answer within answerMaxTokens), with Mellea's
 * defaults. Samples are drawn one at a time; tool calls are not supported (as in Mellea).
 */
export class BudgetForcingSamplingStrategy extends RejectionSamplingStrategy {
  readonly thinkMaxTokens: number;
  readonly answerMaxTokens: number | null;
  readonly startThinkToken: string;
  readonly endThinkToken: string;
  readonly beginResponseToken: string;
  readonly endResponseToken: string;
  readonly thinkWaitSuffix: string;
  readonly answerSuffix: string;
  readonly answerRegex: string;
  readonly #thinkModelOptions: ModelOptions | undefined;
  readonly #answerModelOptions: ModelOptions | undefined;

  constructor(options: BudgetForcingSamplingStrategyOptions = {}) {
    super({ ...options, concurrencyBudget: 1, pooled: false });
    this.thinkMaxTokens = options.thinkMaxTokens ?? 4096;
    this.answerMaxTokens = options.answerMaxTokens ?? null;
    this.startThinkToken = options.startThinkToken ?? "<think>";
    this.endThinkToken = options.endThinkToken ?? "</think>";
    this.beginResponseToken = options.beginResponseToken ?? "";
    this.endResponseToken = options.endResponseToken ?? "";
    this.thinkWaitSuffix = options.thinkWaitSuffix ?? "";
    this.answerSuffix = options.answerSuffix ?? "";
    this.answerRegex = options.answerRegex ?? "\\\\boxed{.*?}";
    this.#thinkModelOptions = options.thinkModelOptions;
    this.#answerModelOptions = options.answerModelOptions;
  }

  protected override async drawSamples<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
  ): Promise<Array<DrawnSample<T>>> {
    const thunk = await thinkBudgetForcing(backend, action, context, {
      thinkMaxTokens: this.thinkMaxTokens,
      answerMaxTokens: this.answerMaxTokens,
      startThinkToken: this.startThinkToken,
      endThinkToken: this.endThinkToken,
      beginResponseToken: this.beginResponseToken,
      thinkMoreSuffix: this.thinkWaitSuffix,
      answerSuffix: this.answerSuffix,
      ...(run.modelOptions === undefined ? {} : { modelOptions: run.modelOptions }),
      ...(this.#thinkModelOptions === undefined ? {} : { thinkModelOptions: this.#thinkModelOptions }),
      ...(this.#answerModelOptions === undefined ? {} : { answerModelOptions: this.#answerModelOptions }),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
    const computed = ComputedModelOutputThunk.from(thunk) as unknown as ComputedModelOutputThunk<T>;
    return [{ thunk: computed, context: context.add(action).add(computed), action }];
  }
}
