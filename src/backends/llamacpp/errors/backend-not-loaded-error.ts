import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.BackendNotLoadedError");

/** The backend's model or context was read before load() finished (or after dispose()). */
export class BackendNotLoadedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  constructor(what: string) {
    super(
      `The LlamaCppBackend's ${what} is not available: it is loaded by \`await backend.load()\` ` +
        "(or LlamaCppBackend.create()) and released by dispose(). Generating loads it automatically.",
    );
    this.name = "BackendNotLoadedError";
  }

  static override isInstance(error: unknown): error is BackendNotLoadedError {
    return hasErrorMarker(error, marker);
  }
}
