import { SamplingResult, type SamplingResultInit } from "../../core/sampling-result.js";

/** A SamplingResult that also records the score each sample got (null for samples that were not scored). */
export class ScoredSamplingResult<T = string> extends SamplingResult<T> {
  /** One entry per sample, aligned with sampleGenerations. */
  readonly scores: Array<number | null>;

  constructor(init: SamplingResultInit<T>, scores: Array<number | null>) {
    super(init);
    this.scores = scores;
  }
}
