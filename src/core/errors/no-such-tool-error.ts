import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.NoSuchToolError");

/** The model called a tool that was not offered; it is never executed. */
export class NoSuchToolError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  readonly toolName: string;
  readonly availableTools: readonly string[];

  constructor(toolName: string, availableTools: readonly string[]) {
    super(
      `The model called a tool named "${toolName}", which does not exist. ` +
        (availableTools.length === 0
          ? "No tools were offered to this generation."
          : `Available tools: ${availableTools.join(", ")}.`),
    );
    this.name = "NoSuchToolError";
    this.toolName = toolName;
    this.availableTools = availableTools;
  }

  static override isInstance(error: unknown): error is NoSuchToolError {
    return hasErrorMarker(error, marker);
  }
}
