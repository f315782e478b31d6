import type { ErrorKind } from "../../core/errors/error-kind.js";
import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufModelsFolderError";
const symbol = Symbol.for(marker);

/**
 * The folder generated models (or the vocabulary cache) go into cannot be made or written. `setting` is
 * what chose the folder: `TESSERA_MODELS_DIR` (or the package's models/ folder it overrides), or the
 * `dir` option.
 */
export class GgufModelsFolderError extends GgufError {
  readonly [symbol] = true;

  override readonly kind: ErrorKind = "unavailable";
  readonly folder: string;
  readonly setting: string;

  constructor(options: { folder: string; reason: string; setting: string; cause?: unknown }) {
    super(
      `Cannot use the models folder ${options.folder}: ${options.reason}. Set ${options.setting} to a writable folder.`,
      { cause: options.cause },
    );
    this.name = "GgufModelsFolderError";
    this.folder = options.folder;
    this.setting = options.setting;
  }

  static override isInstance(error: unknown): error is GgufModelsFolderError {
    return GgufError.hasMarker(error, marker);
  }
}
