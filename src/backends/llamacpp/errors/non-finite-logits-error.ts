import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.NonFiniteLogitsError");

/** The model produced NaN or infinite logits, so nothing could be sampled; the output so far is kept. */
export class NonFiniteLogitsError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  readonly partialText: string;

  constructor(details: string, partialText: string) {
    super(`${details}. The ${partialText.length} characters generated before are in error.partialText.`);
    this.name = "NonFiniteLogitsError";
    this.partialText = partialText;
  }

  static override isInstance(error: unknown): error is NonFiniteLogitsError {
    return hasErrorMarker(error, marker);
  }
}
