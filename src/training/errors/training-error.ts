// Raised when `trainModel` cannot start or finish: bad options (named as the API names them), a corpus
// that gives no training rows, or llama.cpp failing inside the trainer. The CLI maps option names to
// its flags.
import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.training.TrainingError");

export class TrainingError extends TesseraError {
  readonly [marker] = true;
  /** The option at fault, when one is (`sequenceLength`, `corpus`, ...). */
  readonly option: string | undefined;
  // An error that names an option is the caller's to fix; one without is llama.cpp failing in the trainer.
  override readonly kind: ErrorKind;

  constructor(message: string, options: { option?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TrainingError";
    this.option = options.option;
    this.kind = options.option === undefined ? "internal" : "invalid-option";
  }

  static override isInstance(error: unknown): error is TrainingError {
    return hasErrorMarker(error, marker);
  }
}
