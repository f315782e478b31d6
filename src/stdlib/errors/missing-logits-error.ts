import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.MissingLogitsError");

/** Best-of-n was asked to score by mean token log-probability, but a sample carries no per-token log-probabilities. */
export class MissingLogitsError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unsupported";

  /** The sample without logprobs; null when the backend reports no logits capability at all. */
  readonly sampleIndex: number | null;

  constructor(sampleIndex: number | null, modelId: string) {
    super(
      (sampleIndex === null
        ? `The backend of model "${modelId}" reports no logits capability, so samples cannot be scored by mean logprob. `
        : `Sample ${sampleIndex} from model "${modelId}" came back without per-token log-probabilities, so it cannot be scored by mean logprob. `) +
        "Use a backend with logits capability (BestOfNStrategy asks for them itself), or pass a score function.",
    );
    this.name = "MissingLogitsError";
    this.sampleIndex = sampleIndex;
  }

  static override isInstance(error: unknown): error is MissingLogitsError {
    return hasErrorMarker(error, marker);
  }
}
