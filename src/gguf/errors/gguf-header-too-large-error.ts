import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufHeaderTooLargeError";
const symbol = Symbol.for(marker);

/**
 * The header (key/values and tensor table) runs past the reader's limit. Real headers are a few MB
 * (a 128k-token vocabulary with its merges is ~8 MB); a huge one means a hostile or broken file, and
 * reading it would allocate as much memory as the file is large.
 */
export class GgufHeaderTooLargeError extends GgufError {
  readonly [symbol] = true;
  readonly limit: number;

  constructor(options: { limit: number; offset: number }) {
    super(
      `GGUF header is larger than ${options.limit} bytes (it still continues at byte offset ${options.offset}). ` +
        `The file is probably corrupt; if it is genuine, pass a larger maxHeaderBytes to readGgufFile.`,
    );
    this.name = "GgufHeaderTooLargeError";
    this.limit = options.limit;
  }

  static override isInstance(error: unknown): error is GgufHeaderTooLargeError {
    return GgufError.hasMarker(error, marker);
  }
}
