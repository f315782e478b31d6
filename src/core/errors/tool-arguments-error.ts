import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ToolArgumentsError");

/** Tool-call arguments were malformed or failed the tool's schema; the tool was not executed. */
export class ToolArgumentsError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  readonly toolName: string;
  /** Dotted paths of the arguments that failed (empty when the arguments as a whole were unusable). */
  readonly fields: readonly string[];

  constructor(toolName: string, problem: string, fields: readonly string[], cause?: unknown) {
    super(
      `Arguments for tool "${toolName}" are invalid, so it was not run: ${problem}. ` +
        "Ask the model again, or check that the tool schema describes what it should send.",
      { cause },
    );
    this.name = "ToolArgumentsError";
    this.toolName = toolName;
    this.fields = fields;
  }

  static override isInstance(error: unknown): error is ToolArgumentsError {
    return hasErrorMarker(error, marker);
  }
}
