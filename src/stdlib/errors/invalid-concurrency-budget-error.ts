import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidConcurrencyBudgetError");

/** A sampling strategy was given a concurrency budget (samples drawn per round) that is not a positive integer. */
export class InvalidConcurrencyBudgetError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-option";

  readonly concurrencyBudget: unknown;

  constructor(concurrencyBudget: unknown) {
    super(
      `The concurrency budget (samples per round) must be a positive integer but is ${String(concurrencyBudget)}. ` +
        "Pass concurrencyBudget >= 1 (1 draws samples one at a time).",
    );
    this.name = "InvalidConcurrencyBudgetError";
    this.concurrencyBudget = concurrencyBudget;
  }

  static override isInstance(error: unknown): error is InvalidConcurrencyBudgetError {
    return hasErrorMarker(error, marker);
  }
}
