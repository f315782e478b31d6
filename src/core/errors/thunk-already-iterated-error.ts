import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ThunkAlreadyIteratedError");

/** A thunk's text stream is read once; a second iterator was requested. */
export class ThunkAlreadyIteratedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  constructor() {
    super(
      "This ModelOutputThunk is already being iterated (its stream is single-consumer). " +
        "Keep one for-await loop, or await thunk.avalue() and share the text.",
    );
    this.name = "ThunkAlreadyIteratedError";
  }

  static override isInstance(error: unknown): error is ThunkAlreadyIteratedError {
    return hasErrorMarker(error, marker);
  }
}
