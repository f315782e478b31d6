import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { OpenAIBackendError } from "./openai-backend-error.js";

const marker = Symbol.for("tessera.error.OpenAIMalformedStreamError");

/** The response could not be parsed: an SSE `data:` line or a body that is not the JSON it should be. */
export class OpenAIMalformedStreamError extends OpenAIBackendError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  /** The offending payload (capped). */
  readonly payload: string;

  constructor(what: string, payload: string, cause?: unknown) {
    super(
      `The server sent ${what} that is not valid JSON: ${JSON.stringify(payload.slice(0, 120))}. ` +
        "It is not a compatible OpenAI server or it failed mid-response; the text received so far is kept.",
      false,
      { cause },
    );
    this.name = "OpenAIMalformedStreamError";
    this.payload = payload.slice(0, 1000);
  }

  static override isInstance(error: unknown): error is OpenAIMalformedStreamError {
    return hasErrorMarker(error, marker);
  }
}
