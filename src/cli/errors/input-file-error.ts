import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InputFileError");

/** A command's file argument names nothing readable (missing, a folder, no permission). */
export class InputFileError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-input";
  readonly path: string;

  constructor(path: string, problem: string, fix: string, cause?: unknown) {
    super(`Cannot read ${path}: ${problem}. ${fix}`, { cause });
    this.name = "InputFileError";
    this.path = path;
  }

  static override isInstance(error: unknown): error is InputFileError {
    return hasErrorMarker(error, marker);
  }
}
