import type { CBlock } from "./cblock.js";
import type { Component } from "./component.js";
import type { ComputedModelOutputThunk } from "./computed-model-output-thunk.js";
import type { Context } from "./context.js";
import type { Requirement, ValidationResult } from "./requirement.js";

/** The action behind one sample: what was sent to the backend (repair strategies change it between samples). */
export type SampleActionType<T = string> = Component<T> | CBlock;

export interface SamplingResultInit<T> {
  /** Index into sampleGenerations of the chosen output. */
  resultIndex: number;
  /** Whether the chosen output passed every requirement. */
  success: boolean;
  sampleGenerations?: Array<ComputedModelOutputThunk<T>> | null;
  /** Per sample, one [requirement, result] pair per requirement evaluated. */
  sampleValidations?: Array<Array<[Requirement, ValidationResult]>> | null;
  sampleActions?: Array<SampleActionType<T>> | null;
  sampleContexts?: Context[] | null;
}

/** What a sampling run produced: the chosen output and every sample, with validations, actions and contexts. */
export class SamplingResult<T = string> {
  readonly resultIndex: number;
  readonly success: boolean;
  readonly sampleGenerations: Array<ComputedModelOutputThunk<T>>;
  readonly sampleValidations: Array<Array<[Requirement, ValidationResult]>>;
  readonly sampleActions: Array<SampleActionType<T>>;
  readonly sampleContexts: Context[];

  constructor(init: SamplingResultInit<T>) {
    this.resultIndex = init.resultIndex;
    this.success = init.success;
    // Missing lists become empty ones so readers never branch on null.
    this.sampleGenerations = init.sampleGenerations ?? [];
    this.sampleValidations = init.sampleValidations ?? [];
    this.sampleActions = init.sampleActions ?? [];
    this.sampleContexts = init.sampleContexts ?? [];
  }

  /** The chosen output. */
  get result(): ComputedModelOutputThunk<T> {
    return this.sampleGenerations[this.resultIndex]!;
  }

  /** The context of the chosen output. */
  get resultCtx(): Context {
    return this.sampleContexts[this.resultIndex]!;
  }

  /** The action that produced the chosen output. */
  get resultAction(): SampleActionType<T> {
    return this.sampleActions[this.resultIndex]!;
  }

  /** The validations of the chosen output. */
  get resultValidations(): Array<[Requirement, ValidationResult]> {
    return this.sampleValidations[this.resultIndex] ?? [];
  }
}
