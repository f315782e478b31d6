import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ModelWriteInterruptedError");

/** Ctrl-C while a preset model was being written; the partial file is gone. */
export class ModelWriteInterruptedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "cancelled";

  constructor(what: string) {
    super(`Interrupted while writing ${what}; the partial file was removed.`);
    this.name = "ModelWriteInterruptedError";
  }

  static override isInstance(error: unknown): error is ModelWriteInterruptedError {
    return hasErrorMarker(error, marker);
  }
}
