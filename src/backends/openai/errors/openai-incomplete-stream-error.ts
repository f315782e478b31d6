import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { OpenAIBackendError } from "./openai-backend-error.js";

const marker = Symbol.for("tessera.error.OpenAIIncompleteStreamError");

/** The stream ended before `data: [DONE]`: the connection closed or was reset mid-response. */
export class OpenAIIncompleteStreamError extends OpenAIBackendError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unavailable";

  constructor(reason: string, cause?: unknown) {
    super(
      `The stream ended early (${reason}) without the closing [DONE] event; the output may be cut short. ` +
        "The text received so far is kept; retry the call if you need the whole answer.",
      true,
      { cause },
    );
    this.name = "OpenAIIncompleteStreamError";
  }

  static override isInstance(error: unknown): error is OpenAIIncompleteStreamError {
    return hasErrorMarker(error, marker);
  }
}
