import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.StreamingValidationFailedError");

/**
 * Why a sample was cancelled: a requirement's streaming check failed. It is the thunk's cancellation reason
 * (generationError hooks and the producer's abort signal see it); the text up to the failure stays in
 * thunk.value.
 */
export class StreamingValidationFailedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-output";

  readonly requirement: string | null;
  readonly reason: string | null;
  readonly chunkIndex: number;

  constructor(requirement: string | null, reason: string | null, chunkIndex: number) {
    super(
      `The sample was cancelled at chunk ${chunkIndex}: the requirement "${requirement ?? "(no description)"}" ` +
        `failed while streaming${reason === null ? "" : ` (${reason})`}. Its text so far is in thunk.value; ` +
        "a strategy starts a fresh sample in its place while its budget lasts.",
    );
    this.name = "StreamingValidationFailedError";
    this.requirement = requirement;
    this.reason = reason;
    this.chunkIndex = chunkIndex;
  }

  static override isInstance(error: unknown): error is StreamingValidationFailedError {
    return hasErrorMarker(error, marker);
  }
}
