import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufLengthExceedsFileError";
const symbol = Symbol.for(marker);

/**
 * A count or size in the header is larger than the bytes left in the file could hold (bad-inputs case 3).
 * Raised before anything is allocated for it, so a 200-byte file cannot make us reserve gigabytes.
 */
export class GgufLengthExceedsFileError extends GgufError {
  readonly [symbol] = true;
  readonly offset: number;
  readonly declared: bigint;
  readonly bytesLeft: number;
  readonly field: string;

  constructor(options: { offset: number; declared: bigint; bytesLeft: number; field: string }) {
    super(
      `GGUF ${options.field} at byte offset ${options.offset} declares ${options.declared}, more than the ` +
        `${options.bytesLeft} bytes left in the file can hold. The file is corrupt or hostile; do not load it.`,
    );
    this.name = "GgufLengthExceedsFileError";
    this.offset = options.offset;
    this.declared = options.declared;
    this.bytesLeft = options.bytesLeft;
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is GgufLengthExceedsFileError {
    return GgufError.hasMarker(error, marker);
  }
}
