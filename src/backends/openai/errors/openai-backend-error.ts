import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.OpenAIBackendError");

/** Base of the OpenAI backend's errors: what was received before the failure, and how many attempts ran. */
export class OpenAIBackendError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unavailable";

  /** Text that reached the caller before the failure (also in thunk.value). */
  partialText = "";
  /** Requests sent, retries included. */
  attempts = 1;
  /** Whether a new attempt may succeed (rate limits, overload, network faults before the first token). */
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "OpenAIBackendError";
    this.retryable = retryable;
  }

  static override isInstance(error: unknown): error is OpenAIBackendError {
    return hasErrorMarker(error, marker);
  }
}
