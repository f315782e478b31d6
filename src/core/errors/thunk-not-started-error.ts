import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ThunkNotStartedError");

/** A consumer read an uncomputed thunk that nothing is producing into, which would otherwise wait forever. */
export class ThunkNotStartedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  constructor() {
    super(
      "This ModelOutputThunk has no value and no generation is producing one. " +
        "Get thunks from a backend (which starts their producer), or construct them with a value.",
    );
    this.name = "ThunkNotStartedError";
  }

  static override isInstance(error: unknown): error is ThunkNotStartedError {
    return hasErrorMarker(error, marker);
  }
}
