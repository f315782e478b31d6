import type { ComputedModelOutputThunk } from "../../core/computed-model-output-thunk.js";
import type { Context } from "../../core/context.js";
import type { Requirement, ValidationResult } from "../../core/requirement.js";
import type { SamplingReport } from "../../core/sampling-report.js";
import { type SampleActionType, SamplingResult } from "../../core/sampling-result.js";

/** One generated and computed sample, with the context it produced and the action that asked for it. */
export interface DrawnSample<T> {
  thunk: ComputedModelOutputThunk<T>;
  /** The context after the generation: the action and this output appended. */
  context: Context;
  action: SampleActionType<T>;
}

export type Validations = Array<[Requirement, ValidationResult]>;

/** True when every requirement passed (an empty list passes). */
export function allPassed(validations: Validations): boolean {
  return validations.every(([, result]) => result.result);
}

/** How many requirements passed. */
export function passedCount(validations: Validations): number {
  return validations.filter(([, result]) => result.result).length;
}

/** The samples of one sampling run so far, in draw order; becomes the SamplingResult. */
export class SamplingHistory<T> {
  readonly generations: Array<ComputedModelOutputThunk<T>> = [];
  readonly validations: Validations[] = [];
  readonly actions: Array<SampleActionType<T>> = [];
  readonly contexts: Context[] = [];

  get length(): number {
    return this.generations.length;
  }

  push(sample: DrawnSample<T>, validations: Validations): number {
    this.generations.push(sample.thunk);
    this.validations.push(validations);
    this.actions.push(sample.action);
    this.contexts.push(sample.context);
    return this.generations.length - 1;
  }

  /**
   * Put the samples in the order of `keys` (one per sample, ascending; stable on equal keys). A pooled run
   * records samples as they finish and then orders them by start, so that ties, which go to the earliest
   * sample, do not depend on which sample happened to finish first.
   */
  sortBy(keys: readonly number[]): void {
    // A sample without a key (its recording failed halfway) keeps its place after those with one.
    const keyOf = (index: number) => keys[index] ?? Number.MAX_SAFE_INTEGER;
    const order = this.generations.map((_, index) => index).sort((a, b) => keyOf(a) - keyOf(b) || a - b);
    const reorder = <E>(items: E[]) => {
      const sorted = order.map((index) => items[index]!);
      items.splice(0, items.length, ...sorted);
    };
    reorder(this.generations);
    reorder(this.validations);
    reorder(this.actions);
    reorder(this.contexts);
  }

  /** Indices of the samples that passed every requirement, in draw order. */
  passingIndices(): number[] {
    return this.validations.flatMap((validations, index) => (allPassed(validations) ? [index] : []));
  }

  toResult(resultIndex: number, success: boolean, report: SamplingReport | null = null): SamplingResult<T> {
    return new SamplingResult<T>({
      report,
      resultIndex,
      success,
      sampleGenerations: [...this.generations],
      sampleValidations: [...this.validations],
      sampleActions: [...this.actions],
      sampleContexts: [...this.contexts],
    });
  }
}
