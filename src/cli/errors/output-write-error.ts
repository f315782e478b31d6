import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.OutputWriteError");

// The reasons a write fails, in words (the raw "EACCES: permission denied, mkdir '/x'" says less).
const reasons: Record<string, string> = {
  ENOENT: "the folder does not exist and cannot be created",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder",
};

function describe(cause: unknown): string {
  if (typeof cause === "string") return cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && reasons[code] !== undefined) return reasons[code];
  return cause instanceof Error ? cause.message : String(cause);
}

/** A command could not write its output file (missing folder, no permission, disk full). */
export class OutputWriteError extends TesseraError {
  readonly [marker] = true;
  readonly path: string;

  /** `cause` is the failed file-system call's error, or a reason in words; `flag` the option to change. */
  constructor(path: string, cause: unknown, flag = "--out") {
    super(
      `Cannot write ${path}: ${describe(cause)}. Check that the folder exists and is writable, or pass another ${flag}.`,
      { cause },
    );
    this.name = "OutputWriteError";
    this.path = path;
  }

  static override isInstance(error: unknown): error is OutputWriteError {
    return hasErrorMarker(error, marker);
  }
}
