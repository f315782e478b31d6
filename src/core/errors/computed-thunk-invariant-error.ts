import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ComputedThunkInvariantError");

/** A write would break a ComputedModelOutputThunk's invariant (computed, with a string value). */
export class ComputedThunkInvariantError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-state";

  readonly field: string;

  constructor(field: string, problem: string) {
    super(
      `Cannot set ${field} on a ComputedModelOutputThunk: ${problem}. ` +
        "A computed thunk always holds a string value; assign a string, or build a new ModelOutputThunk.",
    );
    this.name = "ComputedThunkInvariantError";
    this.field = field;
  }

  static override isInstance(error: unknown): error is ComputedThunkInvariantError {
    return hasErrorMarker(error, marker);
  }
}
