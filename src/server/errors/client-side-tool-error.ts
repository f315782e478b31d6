import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ClientSideToolError");

/** A tool declared by an HTTP client was asked to run on the server; the client runs its own tools. */
export class ClientSideToolError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  readonly toolName: string;

  constructor(toolName: string) {
    super(
      `The tool "${toolName}" was declared by the HTTP client, so the client runs it: return the call in ` +
        "tool_calls and let the client send a tool message with the result.",
    );
    this.name = "ClientSideToolError";
    this.toolName = toolName;
  }

  static override isInstance(error: unknown): error is ClientSideToolError {
    return hasErrorMarker(error, marker);
  }
}
