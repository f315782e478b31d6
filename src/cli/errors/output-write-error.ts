import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.OutputWriteError");

/** A command could not write its output file (missing folder, no permission, disk full). */
export class OutputWriteError extends TesseraError {
  readonly [marker] = true;
  readonly path: string;

  constructor(path: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Cannot write ${path}: ${reason}. Check that the folder exists and is writable, or pass another --out.`,
      {
        cause,
      },
    );
    this.name = "OutputWriteError";
    this.path = path;
  }

  static override isInstance(error: unknown): error is OutputWriteError {
    return hasErrorMarker(error, marker);
  }
}
