import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.SamplingResultIndexError");

/** A SamplingResult's resultIndex does not point at one of its samples. */
export class SamplingResultIndexError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-argument";
  readonly resultIndex: number;
  readonly sampleCount: number;

  constructor(resultIndex: number, sampleCount: number) {
    super(
      sampleCount === 0
        ? `The sampling result has no samples, so resultIndex ${resultIndex} chooses nothing. ` +
            "A strategy must draw at least one sample before it returns a result."
        : `resultIndex ${resultIndex} is out of range for ${sampleCount} sample(s): use an integer in ` +
            `0..${sampleCount - 1}, or -${sampleCount}..-1 to count from the end.`,
    );
    this.name = "SamplingResultIndexError";
    this.resultIndex = resultIndex;
    this.sampleCount = sampleCount;
  }

  static override isInstance(error: unknown): error is SamplingResultIndexError {
    return hasErrorMarker(error, marker);
  }
}
