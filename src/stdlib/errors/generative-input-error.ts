import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.GenerativeInputError");

/** A generative function was called with arguments that fail its zod input schema; no model was called. */
export class GenerativeInputError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";

  readonly functionName: string;
  readonly fields: readonly string[];

  constructor(functionName: string, problem: string, fields: readonly string[], cause?: unknown) {
    super(
      `Arguments for generative function "${functionName}" are invalid, so the model was not called: ${problem}. ` +
        "Pass arguments that match its input schema.",
      { cause },
    );
    this.name = "GenerativeInputError";
    this.functionName = functionName;
    this.fields = fields;
  }

  static override isInstance(error: unknown): error is GenerativeInputError {
    return hasErrorMarker(error, marker);
  }
}
