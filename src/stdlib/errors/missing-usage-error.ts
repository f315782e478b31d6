import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.MissingUsageError");

/** Budget forcing counts tokens against its budgets, and the backend reported no token usage. */
export class MissingUsageError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unsupported";

  readonly modelId: string;

  constructor(modelId: string) {
    super(
      `The backend of model "${modelId}" reported no token usage for a generation, so budget forcing cannot ` +
        "count tokens against thinkMaxTokens. Use a backend (or server) that reports usage.",
    );
    this.name = "MissingUsageError";
    this.modelId = modelId;
  }

  static override isInstance(error: unknown): error is MissingUsageError {
    return hasErrorMarker(error, marker);
  }
}
