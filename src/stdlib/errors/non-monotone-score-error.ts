import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.NonMonotoneScoreError");

/** pruneLosers was asked for with a score whose running value does not bound its final value. */
export class NonMonotoneScoreError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  constructor() {
    super(
      "BestOfNStrategy can stop samples that can no longer win (pruneLosers) only with a score that never " +
        "rises as a sample grows, such as sumTokenLogprob. The default mean token logprob is not one (a later " +
        "confident token raises it). Pass score: sumTokenLogprob, or leave pruneLosers off.",
    );
    this.name = "NonMonotoneScoreError";
  }

  static override isInstance(error: unknown): error is NonMonotoneScoreError {
    return hasErrorMarker(error, marker);
  }
}
