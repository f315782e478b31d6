import { GgufError } from "./gguf-error.js";
import { GgufTruncatedError } from "./gguf-truncated-error.js";

const marker = "tessera.gguf.GgufLengthExceedsFileError";
const symbol = Symbol.for(marker);

/**
 * A count or size in the header is larger than the bytes left in the file could hold (bad-inputs case 3).
 * Raised before anything is allocated for it, so a 200-byte file cannot make us reserve gigabytes. A cut
 * file and a lying length look the same from inside, so this is also a GgufTruncatedError.
 */
export class GgufLengthExceedsFileError extends GgufTruncatedError {
  readonly [symbol] = true;
  /** The count or byte length the file declares. */
  readonly declared: bigint;
  readonly bytesLeft: number;
  readonly field: string;

  constructor(options: {
    offset: number;
    declared: bigint;
    minimumItemBytes: number;
    bytesLeft: number;
    fileSize: number;
    field: string;
  }) {
    // Counted from the uint64 count field itself, which is where `offset` points.
    const bytesNeeded = 8n + options.declared * BigInt(options.minimumItemBytes);
    super(
      {
        offset: options.offset,
        bytesNeeded:
          bytesNeeded > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(bytesNeeded),
        fileSize: options.fileSize,
        section: options.field,
      },
      `GGUF ${options.field} at byte offset ${options.offset} declares ${options.declared}, more than the ` +
        `${options.bytesLeft} bytes left in the file can hold. The file is cut off, corrupt or hostile; ` +
        `do not load it.`,
    );
    this.name = "GgufLengthExceedsFileError";
    this.declared = options.declared;
    this.bytesLeft = options.bytesLeft;
    this.field = options.field;
  }

  static override isInstance(error: unknown): error is GgufLengthExceedsFileError {
    return GgufError.hasMarker(error, marker);
  }
}
