import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.GenerativeOutputError");

/** The model's answer to a generative function does not match the function's output schema. */
export class GenerativeOutputError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  readonly functionName: string;
  /** The model's raw text, kept so callers can inspect or repair it. */
  readonly outputText: string;

  constructor(functionName: string, outputText: string, problem: string, cause?: unknown) {
    super(
      `The model's answer to generative function "${functionName}" does not match its output schema: ${problem}. ` +
        "Add requirements with a strategy to resample, use a backend with grammar support, or loosen the schema.",
      { cause },
    );
    this.name = "GenerativeOutputError";
    this.functionName = functionName;
    this.outputText = outputText;
  }

  static override isInstance(error: unknown): error is GenerativeOutputError {
    return hasErrorMarker(error, marker);
  }
}
