import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.NoGenerationViewError");

/** The context returned no view for generation (`viewForGeneration()` is null), so nothing can be sent. */
export class NoGenerationViewError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  constructor(contextName: string) {
    super(
      `The ${contextName} has no view for generation right now (viewForGeneration() returned null). ` +
        "Use a context that can generate (SimpleContext, ChatContext), or generateFromRaw for actions without history.",
    );
    this.name = "NoGenerationViewError";
  }

  static override isInstance(error: unknown): error is NoGenerationViewError {
    return hasErrorMarker(error, marker);
  }
}
