import type { CBlock } from "./cblock.js";
import type { Component } from "./component.js";
import type { ComputedModelOutputThunk } from "./computed-model-output-thunk.js";
import type { Context } from "./context.js";
import { SamplingResultIndexError } from "./errors/sampling-result-index-error.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";
import type { Requirement, ValidationResult } from "./requirement.js";
import type { SamplingReport } from "./sampling-report.js";

/**
 * The action behind one sample: what was sent to the backend (repair strategies change it between samples).
 * A component, a block, or an earlier output, as in the seed.
 */
export type SampleActionType<T = string> = Component<T> | CBlock | ModelOutputThunk<unknown>;

export interface SamplingResultInit<T> {
  /** Index into sampleGenerations of the chosen output; negative counts from the end (-1 is the last). */
  resultIndex: number;
  /** Whether the chosen output passed every requirement. */
  success: boolean;
  sampleGenerations?: Array<ComputedModelOutputThunk<T>> | null;
  /** Per sample, one [requirement, result] pair per requirement evaluated. */
  sampleValidations?: Array<Array<[Requirement, ValidationResult]>> | null;
  sampleActions?: Array<SampleActionType<T>> | null;
  sampleContexts?: Context[] | null;
  /** How a pooled run spent its budget (streaming strategies); null for round-based runs. */
  report?: SamplingReport | null;
}

/** What a sampling run produced: the chosen output and every sample, with validations, actions and contexts. */
export class SamplingResult<T = string> {
  readonly resultIndex: number;
  readonly success: boolean;
  readonly sampleGenerations: Array<ComputedModelOutputThunk<T>>;
  readonly sampleValidations: Array<Array<[Requirement, ValidationResult]>>;
  readonly sampleActions: Array<SampleActionType<T>>;
  readonly sampleContexts: Context[];
  /** How a pooled run spent its budget (live samples, attempts, cancellations, tokens); null when not pooled. */
  readonly report: SamplingReport | null;

  constructor(init: SamplingResultInit<T>) {
    this.resultIndex = init.resultIndex;
    this.success = init.success;
    // Missing lists become empty ones so readers never branch on null.
    this.sampleGenerations = init.sampleGenerations ?? [];
    this.sampleValidations = init.sampleValidations ?? [];
    this.sampleActions = init.sampleActions ?? [];
    this.sampleContexts = init.sampleContexts ?? [];
    this.report = init.report ?? null;
    // Checked here, as Mellea asserts it, so a strategy's bad choice fails where it is made. A run with no
    // samples (one aborted before the first finished) is still a valid record; reading its result throws.
    if (this.sampleGenerations.length > 0) this.#position();
  }

  /** The position resultIndex points at, negative indices counted from the end as in Python. */
  #position(): number {
    const count = this.sampleGenerations.length;
    const index = this.resultIndex;
    if (!Number.isInteger(index) || index >= count || index < -count) {
      throw new SamplingResultIndexError(index, count);
    }
    return index < 0 ? count + index : index;
  }

  /** The chosen output. */
  get result(): ComputedModelOutputThunk<T> {
    return this.sampleGenerations[this.#position()]!;
  }

  /** The context of the chosen output. */
  get resultCtx(): Context {
    return this.sampleContexts[this.#position()]!;
  }

  /** The action that produced the chosen output. */
  get resultAction(): SampleActionType<T> {
    return this.sampleActions[this.#position()]!;
  }

  /** The validations of the chosen output. */
  get resultValidations(): Array<[Requirement, ValidationResult]> {
    if (this.sampleGenerations.length === 0) return [];
    return this.sampleValidations[this.#position()] ?? [];
  }
}
