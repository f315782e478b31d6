import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";
import type { SamplingResult } from "../../core/sampling-result.js";

const marker = Symbol.for("tessera.error.SamplingAbortedError");

/** A sampling run was stopped by its AbortSignal; the samples finished before it travel with the error. */
export class SamplingAbortedError extends TesseraError {
  readonly [marker] = true;

  readonly samplesDrawn: number;
  /** Every sample completed (and validated) before the abort, in order. */
  readonly partialResult: SamplingResult<unknown>;

  constructor(partialResult: SamplingResult<unknown>, reason?: unknown) {
    super(
      `Sampling aborted after ${partialResult.sampleGenerations.length} completed sample(s). ` +
        "The completed samples are in error.partialResult; start a new run to continue.",
      { cause: reason },
    );
    this.name = "AbortError";
    this.samplesDrawn = partialResult.sampleGenerations.length;
    this.partialResult = partialResult;
  }

  static override isInstance(error: unknown): error is SamplingAbortedError {
    return hasErrorMarker(error, marker);
  }
}
