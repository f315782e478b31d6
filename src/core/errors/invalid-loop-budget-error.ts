import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidLoopBudgetError");

/** A samplingLoopStart hook (or the caller) set a loop budget that is not a positive integer. */
export class InvalidLoopBudgetError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  readonly loopBudget: unknown;

  constructor(loopBudget: unknown) {
    super(
      `The sampling loop budget must be a positive integer but is ${String(loopBudget)}. ` +
        "Fix the samplingLoopStart hook or the strategy's loopBudget.",
    );
    this.name = "InvalidLoopBudgetError";
    this.loopBudget = loopBudget;
  }

  static override isInstance(error: unknown): error is InvalidLoopBudgetError {
    return hasErrorMarker(error, marker);
  }
}
