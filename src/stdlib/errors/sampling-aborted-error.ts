import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";
import type { SamplingResult } from "../../core/sampling-result.js";

const marker = Symbol.for("tessera.error.SamplingAbortedError");

/** A sampling run was stopped by its AbortSignal; the samples finished before it travel with the error. */
export class SamplingAbortedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "cancelled";

  readonly samplesDrawn: number;
  /**
   * Every sample recorded before the abort, in start order: those that ran to their end (validated) and
   * those a streaming check cancelled (`cancelled`, with that failure as their validation).
   */
  readonly partialResult: SamplingResult<unknown>;

  constructor(partialResult: SamplingResult<unknown>, reason?: unknown) {
    const samples = partialResult.sampleGenerations;
    const cancelled = samples.filter((thunk) => thunk.cancelled).length;
    super(
      `Sampling aborted after ${samples.length} recorded sample(s): ${samples.length - cancelled} ran to their ` +
        `end, ${cancelled} cancelled while streaming. They are in error.partialResult; start a new run to continue.`,
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
