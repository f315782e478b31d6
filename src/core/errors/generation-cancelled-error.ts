import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.GenerationCancelledError");

/** The default reason given to hooks and abort signals when a generation is cancelled without an explicit error. */
export class GenerationCancelledError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "cancelled";

  constructor() {
    super("Generation cancelled. The text produced before the cancellation is in thunk.value.");
    this.name = "GenerationCancelledError";
  }

  static override isInstance(error: unknown): error is GenerationCancelledError {
    return hasErrorMarker(error, marker);
  }
}
