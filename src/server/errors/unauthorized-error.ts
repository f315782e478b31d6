import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.UnauthorizedError");

/** The server has an API key and the request did not carry it (HTTP 401). */
export class UnauthorizedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unauthorized";

  constructor() {
    super(
      "Missing or wrong API key. Send the key given to tessera serve --api-key as 'Authorization: Bearer <key>'.",
    );
    this.name = "UnauthorizedError";
  }

  static override isInstance(error: unknown): error is UnauthorizedError {
    return hasErrorMarker(error, marker);
  }
}
