import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufInvalidHeaderError";
const symbol = Symbol.for(marker);

/** Wrong magic, an unsupported version, or a byte-swapped file (bad-inputs case 2). */
export class GgufInvalidHeaderError extends GgufError {
  readonly [symbol] = true;
  readonly offset: number;
  /** The bytes found where the magic or version should be, as hex. */
  readonly bytesFound: string;

  constructor(options: { offset: number; bytesFound: string; problem: string }) {
    super(
      `Not a readable GGUF file: ${options.problem} (found bytes ${options.bytesFound} at byte offset ` +
        `${options.offset}). Check that the path points to a GGUF model file of version 2 or 3.`,
    );
    this.name = "GgufInvalidHeaderError";
    this.offset = options.offset;
    this.bytesFound = options.bytesFound;
  }

  static override isInstance(error: unknown): error is GgufInvalidHeaderError {
    return GgufError.hasMarker(error, marker);
  }
}
