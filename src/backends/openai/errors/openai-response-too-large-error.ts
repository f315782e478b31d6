import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker } from "../../../core/errors/tessera-error.js";
import { OpenAIBackendError } from "./openai-backend-error.js";

const marker = Symbol.for("tessera.error.OpenAIResponseTooLargeError");

/** The server sent more than it should: past the byte cap, or more chunks than maxNewTokens allows. */
export class OpenAIResponseTooLargeError extends OpenAIBackendError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  readonly limit: number;
  readonly unit: "bytes" | "tokens";

  constructor(limit: number, unit: "bytes" | "tokens") {
    const option = unit === "bytes" ? "maxResponseBytes" : "modelOptions.maxNewTokens";
    super(
      `The server sent more than ${limit} ${unit}; stopped reading. It ignores the limits it was given ` +
        `or misbehaves; raise ${option} if the answer is legitimately that long.`,
      false,
    );
    this.name = "OpenAIResponseTooLargeError";
    this.limit = limit;
    this.unit = unit;
  }

  static override isInstance(error: unknown): error is OpenAIResponseTooLargeError {
    return hasErrorMarker(error, marker);
  }
}
