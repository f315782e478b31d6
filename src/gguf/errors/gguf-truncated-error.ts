import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufTruncatedError";
const symbol = Symbol.for(marker);

export interface GgufTruncatedErrorOptions {
  readonly offset: number;
  readonly bytesNeeded: number;
  readonly fileSize: number;
  readonly section: string;
}

/** The file ends before a field that its header says is there (bad-inputs case 1). */
export class GgufTruncatedError extends GgufError {
  readonly [symbol] = true;
  readonly offset: number;
  readonly bytesNeeded: number;
  readonly fileSize: number;
  readonly section: string;

  constructor(options: GgufTruncatedErrorOptions, message?: string) {
    super(
      message ??
        `GGUF file is truncated in the ${options.section}: ${options.bytesNeeded} bytes needed at byte offset ` +
          `${options.offset}, but the file ends at ${options.fileSize}. The file was probably cut off while ` +
          `downloading or writing; fetch or generate it again.`,
    );
    this.name = "GgufTruncatedError";
    this.offset = options.offset;
    this.bytesNeeded = options.bytesNeeded;
    this.fileSize = options.fileSize;
    this.section = options.section;
  }

  static override isInstance(error: unknown): error is GgufTruncatedError {
    return GgufError.hasMarker(error, marker);
  }
}
