import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { OpenAIBackendError } from "./openai-backend-error.js";

const marker = Symbol.for("tessera.error.OpenAIProviderError");

/** The server reported an error inside a 200 stream (an `error` event or an `{ "error": … }` payload). */
export class OpenAIProviderError extends OpenAIBackendError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unavailable";

  /** The error object the server sent. */
  readonly providerError: unknown;

  constructor(providerError: unknown) {
    const detail = providerError as { message?: unknown; type?: unknown } | null;
    const text = typeof detail?.message === "string" ? detail.message : JSON.stringify(providerError);
    super(
      `The server reported an error mid-stream: ${text}. The text received before it is kept; retry the call.`,
      false,
    );
    this.name = "OpenAIProviderError";
    this.providerError = providerError;
  }

  static override isInstance(error: unknown): error is OpenAIProviderError {
    return hasErrorMarker(error, marker);
  }
}
