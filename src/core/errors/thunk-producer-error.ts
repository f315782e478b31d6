import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ThunkProducerError");

/** A backend misused the producer side of a thunk (started it twice, or on a computed thunk). */
export class ThunkProducerError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  /** `remedy`: what the backend should do instead (default: create a new thunk for each generation). */
  constructor(problem: string, remedy = "Create a new thunk for each generation.") {
    super(`Cannot start producing into this ModelOutputThunk: ${problem}. ${remedy}`);
    this.name = "ThunkProducerError";
  }

  static override isInstance(error: unknown): error is ThunkProducerError {
    return hasErrorMarker(error, marker);
  }
}
