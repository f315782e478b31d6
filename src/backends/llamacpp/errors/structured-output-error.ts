import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.StructuredOutputError");

/**
 * The grammar-constrained JSON did not become a valid value: it was cut off (token limit, stop sequence,
 * cancellation) or it failed a check the grammar cannot express (a minimum, a pattern). Recorded on
 * `thunk.error`; the text stays in `thunk.value`.
 */
export class StructuredOutputError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  readonly text: string;
  readonly finishReason: string | null;

  constructor(text: string, finishReason: string | null, details: string, cause?: unknown) {
    super(
      `The structured output does not match the requested format: ${details}` +
        (finishReason === "length" ? " (the generation hit maxNewTokens: raise it)" : "") +
        ". The text is in thunk.value; the value checks that the grammar cannot enforce (minimum, pattern) " +
        "are the usual cause: sample again or relax them.",
      { cause },
    );
    this.name = "StructuredOutputError";
    this.text = text;
    this.finishReason = finishReason;
  }

  static override isInstance(error: unknown): error is StructuredOutputError {
    return hasErrorMarker(error, marker);
  }
}
