import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";
import { describeFileSystemError } from "../../core/files/prepare-folder.js";

const marker = Symbol.for("tessera.error.OutputWriteError");

/** A command could not write its output file (missing folder, no permission, disk full). */
export class OutputWriteError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "unavailable";
  readonly path: string;

  /** `cause` is the failed file-system call's error, or a reason in words; `flag` the option to change. */
  constructor(path: string, cause: unknown, flag = "--out") {
    super(
      `Cannot write ${path}: ${describeFileSystemError(cause)}. Check that the folder exists and is writable, or pass another ${flag}.`,
      { cause },
    );
    this.name = "OutputWriteError";
    this.path = path;
  }

  static override isInstance(error: unknown): error is OutputWriteError {
    return hasErrorMarker(error, marker);
  }
}
