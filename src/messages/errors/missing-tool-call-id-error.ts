import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.MissingToolCallIdError");

/** A tool result has no `tool_call_id`, so an OpenAI-compatible server could not match it to its call. */
export class MissingToolCallIdError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";

  constructor(context: string) {
    super(
      `${context}: a tool message needs the id of the tool call it answers (tool_call_id). ` +
        "Pass the id the assistant turn gave its tool call.",
    );
    this.name = "MissingToolCallIdError";
  }

  static override isInstance(error: unknown): error is MissingToolCallIdError {
    return hasErrorMarker(error, marker);
  }
}
