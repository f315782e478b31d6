import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ModelLoadAbortedError");

/** Model loading was stopped by an AbortSignal; nothing stays allocated. */
export class ModelLoadAbortedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "cancelled";

  readonly path: string;

  constructor(path: string, reason?: unknown) {
    super(`Loading the model ${path} was aborted; nothing stays loaded. Load it again to use it.`, {
      cause: reason,
    });
    this.name = "AbortError";
    this.path = path;
  }

  static override isInstance(error: unknown): error is ModelLoadAbortedError {
    return hasErrorMarker(error, marker);
  }
}
