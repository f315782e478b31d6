import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.BenchTargetUnavailableError");

/** A benchmark row cannot run here (a binary not built, a server that never became ready); its row is skipped with this note. */
export class BenchTargetUnavailableError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "unavailable";
  readonly target: string;
  readonly note: string;

  constructor(target: string, note: string, options?: { cause?: unknown }) {
    super(`${target} is unavailable: ${note}`, options);
    this.name = "BenchTargetUnavailableError";
    this.target = target;
    this.note = note;
  }

  static override isInstance(error: unknown): error is BenchTargetUnavailableError {
    return hasErrorMarker(error, marker);
  }
}
