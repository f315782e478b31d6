import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.LlamaDisposedError");

/** A model or context was used after dispose(). */
export class LlamaDisposedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  constructor(what: "model" | "context") {
    super(
      `This ${what} was disposed; ${what === "model" ? "load the model again" : "create a new context"}.`,
    );
    this.name = "LlamaDisposedError";
  }

  static override isInstance(error: unknown): error is LlamaDisposedError {
    return hasErrorMarker(error, marker);
  }
}
