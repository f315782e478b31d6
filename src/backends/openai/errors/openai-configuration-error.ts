import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.OpenAIConfigurationError");

/** The backend cannot be built from the options and environment given (say, no model name). */
export class OpenAIConfigurationError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  constructor(problem: string) {
    super(`OpenAIBackend: ${problem}.`);
    this.name = "OpenAIConfigurationError";
  }

  static override isInstance(error: unknown): error is OpenAIConfigurationError {
    return hasErrorMarker(error, marker);
  }
}
