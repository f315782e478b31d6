import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.UnknownBackendError");

/** startSession was given a backend name it does not know. */
export class UnknownBackendError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "not-found";

  readonly backendName: string;

  constructor(backendName: string, knownNames: readonly string[]) {
    super(
      `startSession does not know a backend named "${backendName}". Known names: ` +
        `${knownNames.length === 0 ? "none registered" : knownNames.join(", ")}. ` +
        "Pass a Backend instance, or call registerBackendFactory() first.",
    );
    this.name = "UnknownBackendError";
    this.backendName = backendName;
  }

  static override isInstance(error: unknown): error is UnknownBackendError {
    return hasErrorMarker(error, marker);
  }
}
