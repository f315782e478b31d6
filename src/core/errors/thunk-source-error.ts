import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ThunkSourceError");

/**
 * A backend's part source failed without saying why: it threw null or undefined, or sent an error part
 * whose error is one. Stands in for the missing error, so every reader (and the server) gets a real one.
 */
export class ThunkSourceError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "internal";

  constructor(thrown: null | undefined) {
    super(
      `The backend failed without an error value (its stream reported ${String(thrown)}). ` +
        "This is a bug in the backend: report it with the backend's name; the text received so far stays readable.",
    );
    this.name = "ThunkSourceError";
  }

  static override isInstance(error: unknown): error is ThunkSourceError {
    return hasErrorMarker(error, marker);
  }
}
