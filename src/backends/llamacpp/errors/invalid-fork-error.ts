import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidForkError");

/** A fork point outside the tokens its source generated, or a fork of a branch that was closed. */
export class InvalidForkError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  constructor(message: string) {
    super(message);
    this.name = "InvalidForkError";
  }

  static override isInstance(error: unknown): error is InvalidForkError {
    return hasErrorMarker(error, marker);
  }
}
