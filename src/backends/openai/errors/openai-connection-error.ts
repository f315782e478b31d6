import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { OpenAIBackendError } from "./openai-backend-error.js";

const marker = Symbol.for("tessera.error.OpenAIConnectionError");

/** No HTTP response arrived: the connection was refused, reset or failed before the status line. */
export class OpenAIConnectionError extends OpenAIBackendError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unavailable";

  constructor(url: string, cause: unknown) {
    const reason =
      cause instanceof Error
        ? cause.cause instanceof Error
          ? cause.cause.message
          : cause.message
        : String(cause);
    super(
      `Could not get a response from ${url} (${reason}). Check that the server runs and the base URL is right.`,
      true,
      { cause },
    );
    this.name = "OpenAIConnectionError";
  }

  static override isInstance(error: unknown): error is OpenAIConnectionError {
    return hasErrorMarker(error, marker);
  }
}
