import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.StreamingWithStrategyError");

/** act() was asked for an uncomputed (streamable) output together with a strategy or requirements. */
export class StreamingWithStrategyError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  constructor() {
    super(
      "act() with awaitResult: false returns the output before it is computed, but a strategy or requirements " +
        "must read every sample before choosing one. Drop awaitResult: false, or drop the strategy and requirements.",
    );
    this.name = "StreamingWithStrategyError";
  }

  static override isInstance(error: unknown): error is StreamingWithStrategyError {
    return hasErrorMarker(error, marker);
  }
}
