import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.InvalidContextNodeError");

/** Context.fromPrevious was given something that is not a Context, or no data. */
export class InvalidContextNodeError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-argument";

  constructor(problem: string) {
    super(
      `Cannot build a context node: ${problem}. Pass an existing Context and a Component, CBlock or ModelOutputThunk.`,
    );
    this.name = "InvalidContextNodeError";
  }

  static override isInstance(error: unknown): error is InvalidContextNodeError {
    return hasErrorMarker(error, marker);
  }
}
