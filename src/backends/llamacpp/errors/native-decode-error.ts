import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

// The marker keeps the class's first name, so isInstance still knows errors from a copy of tessera older
// than the rename (two copies of the package in one process).
const marker = Symbol.for("tessera.error.NativeGenerationError");

/**
 * The native decode engine ended a decode job with an error (`NativeDecodeErrorCode`: a decode failure, no
 * token left after sampling, an exception on the decode thread). Was `NativeGenerationError`, still exported
 * under that name as a deprecated alias.
 */
export class NativeDecodeError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "internal";

  readonly code: string;
  readonly partialText: string;

  constructor(code: string, details: string, partialText: string) {
    super(
      `${details} (${code}). The ${partialText.length} characters generated before are in error.partialText.`,
    );
    this.name = "NativeDecodeError";
    this.code = code;
    this.partialText = partialText;
  }

  static override isInstance(error: unknown): error is NativeDecodeError {
    return hasErrorMarker(error, marker);
  }
}

/** @deprecated use `NativeDecodeError`: the same class, renamed after 0.1 (it is a decode job's error); removed in 0.3. */
export const NativeGenerationError = NativeDecodeError;
/** @deprecated use `NativeDecodeError`. */
export type NativeGenerationError = NativeDecodeError;
