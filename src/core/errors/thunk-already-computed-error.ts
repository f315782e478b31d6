import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ThunkAlreadyComputedError");

/** astream() was called on a thunk whose generation has already finished. */
export class ThunkAlreadyComputedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  constructor() {
    super(
      "astream() was called after the generation finished, so there is no new text to stream. " +
        "Read thunk.value (or await thunk.avalue()) for the complete output.",
    );
    this.name = "ThunkAlreadyComputedError";
  }

  static override isInstance(error: unknown): error is ThunkAlreadyComputedError {
    return hasErrorMarker(error, marker);
  }
}
