import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.NativeGenerationError");

/** The native decode loop stopped a generation (decode failure, no token left after sampling). */
export class NativeGenerationError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "internal";

  readonly code: string;
  readonly partialText: string;

  constructor(code: string, details: string, partialText: string) {
    super(
      `${details} (${code}). The ${partialText.length} characters generated before are in error.partialText.`,
    );
    this.name = "NativeGenerationError";
    this.code = code;
    this.partialText = partialText;
  }

  static override isInstance(error: unknown): error is NativeGenerationError {
    return hasErrorMarker(error, marker);
  }
}
