import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidRequestError");

/** A request body that does not follow the API (HTTP 400); `param` names the offending field. */
export class InvalidRequestError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";

  readonly param: string | null;
  readonly code: string | null;

  constructor(problem: string, param: string | null = null, code: string | null = null) {
    super(param === null ? problem : `${param}: ${problem}`);
    this.name = "InvalidRequestError";
    this.param = param;
    this.code = code;
  }

  static override isInstance(error: unknown): error is InvalidRequestError {
    return hasErrorMarker(error, marker);
  }
}
