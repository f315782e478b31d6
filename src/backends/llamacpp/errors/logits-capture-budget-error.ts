import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.LogitsCaptureBudgetError");

/**
 * Full logit vectors wait in the stream's queue until they are read: queueCapacity × vocabulary × 4
 * bytes for each of raw and processed. Above a fixed budget the generation is refused up front
 * instead of running the process out of memory later.
 */
export class LogitsCaptureBudgetError extends TesseraError {
  readonly [marker] = true;

  constructor(details: string) {
    super(`Full logits capture refused: ${details}. Nothing was started.`);
    this.name = "LogitsCaptureBudgetError";
  }

  static override isInstance(error: unknown): error is LogitsCaptureBudgetError {
    return hasErrorMarker(error, marker);
  }
}
