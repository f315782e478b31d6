import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidSampleCountError");

/** Best-of-n or majority voting was asked for a sample count that is not a positive integer. */
export class InvalidSampleCountError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  readonly sampleCount: unknown;

  constructor(strategyName: string, sampleCount: unknown) {
    super(
      `${strategyName} needs a positive integer sample count but was given ${String(sampleCount)}. ` +
        "Pass n >= 1 (n = 1 is a single sample).",
    );
    this.name = "InvalidSampleCountError";
    this.sampleCount = sampleCount;
  }

  static override isInstance(error: unknown): error is InvalidSampleCountError {
    return hasErrorMarker(error, marker);
  }
}
