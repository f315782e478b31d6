import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.MissingPromptError");

/** A generating command got no prompt: no words and nothing on stdin. */
export class MissingPromptError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";

  constructor() {
    super('No prompt given. Pass it as an argument (tessera run "Hello") or pipe it on stdin.');
    this.name = "MissingPromptError";
  }

  static override isInstance(error: unknown): error is MissingPromptError {
    return hasErrorMarker(error, marker);
  }
}
