import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InspectorRequestError");

/** A live-inspector API request that names a field wrongly: answered with `status` and the field's name. */
export class InspectorRequestError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";
  readonly field: string;
  readonly status: number;

  constructor(field: string, problem: string, status = 400) {
    super(`Invalid request field "${field}": ${problem}.`);
    this.name = "InspectorRequestError";
    this.field = field;
    this.status = status;
  }

  static override isInstance(error: unknown): error is InspectorRequestError {
    return hasErrorMarker(error, marker);
  }
}
