import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.FolderUnusableError");

/**
 * `prepareFolder` could not make or write into a folder. Each surface wraps it in its own words (the
 * CLI names --out, the models folder names TESSERA_MODELS_DIR); `reason` is already in words.
 */
export class FolderUnusableError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "unavailable";
  readonly folder: string;
  readonly reason: string;

  constructor(folder: string, reason: string, options?: { cause?: unknown }) {
    super(`Cannot use the folder ${folder}: ${reason}. Pick a writable folder.`, options);
    this.name = "FolderUnusableError";
    this.folder = folder;
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is FolderUnusableError {
    return hasErrorMarker(error, marker);
  }
}
