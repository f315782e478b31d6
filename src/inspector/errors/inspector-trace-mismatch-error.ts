import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InspectorTraceMismatchError");

/** The logits traces handed to the inspector cannot describe one generation (missing, or disagreeing). */
export class InspectorTraceMismatchError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";

  constructor(problem: string) {
    super(
      `Cannot build the inspector page: ${problem}. Generate with logits and rawLogits set to the same capture ` +
        "(for example { logits: 10, rawLogits: 10 }) and pass both traces of that one generation.",
    );
    this.name = "InspectorTraceMismatchError";
  }

  static override isInstance(error: unknown): error is InspectorTraceMismatchError {
    return hasErrorMarker(error, marker);
  }
}
