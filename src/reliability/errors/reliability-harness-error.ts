import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.ReliabilityHarnessError");

/** A reliability runner could not do its own work (as opposed to finding a fault in what it tests). */
export class ReliabilityHarnessError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "internal";

  constructor(problem: string, remedy: string, options?: { cause?: unknown }) {
    super(`The reliability harness failed: ${problem}. ${remedy}`, options);
    this.name = "ReliabilityHarnessError";
  }

  static override isInstance(error: unknown): error is ReliabilityHarnessError {
    return hasErrorMarker(error, marker);
  }
}
