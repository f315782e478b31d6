import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufInvalidMetadataError";
const symbol = Symbol.for(marker);

/** A key/value that cannot be valid: unknown value type, duplicate key, bad alignment, invalid UTF-8. */
export class GgufInvalidMetadataError extends GgufError {
  readonly [symbol] = true;
  readonly offset: number;
  readonly key: string | undefined;

  constructor(options: { offset: number; key?: string; problem: string }, cause?: unknown) {
    const where = options.key === undefined ? "" : ` (key "${options.key}")`;
    super(
      `Invalid GGUF metadata at byte offset ${options.offset}${where}: ${options.problem}. ` +
        `The file is corrupt or was written by a broken tool; regenerate it.`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "GgufInvalidMetadataError";
    this.offset = options.offset;
    this.key = options.key;
  }

  static override isInstance(error: unknown): error is GgufInvalidMetadataError {
    return GgufError.hasMarker(error, marker);
  }
}
