import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.UncomputedOutputError");

/** A model output in the context has not been computed yet, so it cannot become a chat message. */
export class UncomputedOutputError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  constructor() {
    super(
      "A ModelOutputThunk in the context is not computed yet, so it cannot be formatted as a message. " +
        "Await its avalue() before generating from a context that contains it.",
    );
    this.name = "UncomputedOutputError";
  }

  static override isInstance(error: unknown): error is UncomputedOutputError {
    return hasErrorMarker(error, marker);
  }
}
