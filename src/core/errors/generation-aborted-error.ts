import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.GenerationAbortedError");

/** A generation was stopped by an AbortSignal; the text produced so far travels with the error. */
export class GenerationAbortedError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "cancelled";

  readonly partialText: string;

  constructor(partialText: string, reason?: unknown) {
    super(
      `Generation aborted after ${partialText.length} characters of output. ` +
        "The partial text is in error.partialText (and thunk.value); start a new generation to continue.",
      { cause: reason },
    );
    this.name = "AbortError";
    this.partialText = partialText;
  }

  static override isInstance(error: unknown): error is GenerationAbortedError {
    return hasErrorMarker(error, marker);
  }
}
