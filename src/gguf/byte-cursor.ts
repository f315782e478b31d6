// A little-endian cursor over a prefix of a GGUF file that never trusts a length: every read is checked
// against the real file size first (a typed error with the byte offset), and a declared count is checked
// against the bytes left before anything is allocated for it.
import { isUtf8 } from "node:buffer";
import { GgufInvalidMetadataError } from "./errors/gguf-invalid-metadata-error.js";
import { GgufLengthExceedsFileError } from "./errors/gguf-length-exceeds-file-error.js";
import { GgufTruncatedError } from "./errors/gguf-truncated-error.js";

/**
 * Thrown (internally only) when a read needs bytes that exist in the file but were not loaded yet;
 * the file reader catches it, loads a longer prefix and parses again.
 */
export class NeedMoreBytesSignal {
  constructor(readonly bytesNeeded: number) {}
}

// ignoreBOM keeps a leading U+FEFF: it is a real token in SentencePiece vocabularies (llama-spm #30143),
// and the default decoder would silently drop it.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export class ByteCursor {
  offset = 0;
  private readonly view: DataView;
  private readonly buffer: Buffer;

  constructor(
    private readonly bytes: Uint8Array,
    readonly fileSize: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get bytesLeft(): number {
    return this.fileSize - this.offset;
  }

  /** Checks that `count` bytes can be read at the current offset. */
  require(count: number, section: string): void {
    const end = this.offset + count;
    if (end > this.fileSize) {
      throw new GgufTruncatedError({
        offset: this.offset,
        bytesNeeded: count,
        fileSize: this.fileSize,
        section,
      });
    }
    if (end > this.bytes.byteLength) throw new NeedMoreBytesSignal(end);
  }

  peekBytes(count: number): Uint8Array {
    const end = Math.min(this.offset + count, this.bytes.byteLength);
    return this.bytes.subarray(this.offset, end);
  }

  uint8(section: string): number {
    this.require(1, section);
    return this.view.getUint8(this.offset++);
  }

  int8(section: string): number {
    this.require(1, section);
    return this.view.getInt8(this.offset++);
  }

  uint16(section: string): number {
    this.require(2, section);
    const value = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return value;
  }

  int16(section: string): number {
    this.require(2, section);
    const value = this.view.getInt16(this.offset, true);
    this.offset += 2;
    return value;
  }

  uint32(section: string): number {
    this.require(4, section);
    const value = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return value;
  }

  int32(section: string): number {
    this.require(4, section);
    const value = this.view.getInt32(this.offset, true);
    this.offset += 4;
    return value;
  }

  float32(section: string): number {
    this.require(4, section);
    const value = this.view.getFloat32(this.offset, true);
    this.offset += 4;
    return value;
  }

  float64(section: string): number {
    this.require(8, section);
    const value = this.view.getFloat64(this.offset, true);
    this.offset += 8;
    return value;
  }

  uint64(section: string): bigint {
    this.require(8, section);
    const value = this.view.getBigUint64(this.offset, true);
    this.offset += 8;
    return value;
  }

  int64(section: string): bigint {
    this.require(8, section);
    const value = this.view.getBigInt64(this.offset, true);
    this.offset += 8;
    return value;
  }

  /**
   * Reads a uint64 count of items that each take at least `minimumItemBytes` in the file, and rejects it
   * when the rest of the file could not hold that many: the only safe bound on a hostile count.
   */
  count(field: string, minimumItemBytes: number): number {
    // Fast path for the common case (a small count that fits): no BigInt per string, which a 128k-token
    // vocabulary would otherwise pay 400k times. Anything else takes the checked path below.
    if (this.offset + 8 <= this.bytes.byteLength && this.view.getUint32(this.offset + 4, true) === 0) {
      const small = this.view.getUint32(this.offset, true);
      if (small <= Math.floor((this.bytesLeft - 8) / Math.max(1, minimumItemBytes))) {
        this.offset += 8;
        return small;
      }
    }
    const countOffset = this.offset;
    const declared = this.uint64(field);
    const capacity = BigInt(Math.floor(this.bytesLeft / Math.max(1, minimumItemBytes)));
    if (declared > capacity) {
      throw new GgufLengthExceedsFileError({
        offset: countOffset,
        declared,
        minimumItemBytes,
        bytesLeft: this.bytesLeft,
        fileSize: this.fileSize,
        field,
      });
    }
    return Number(declared);
  }

  /** A GGUF string: uint64 byte length, then UTF-8 bytes (no terminator). */
  string(field: string): string {
    const length = this.count(`${field} length`, 1);
    this.require(length, field);
    const start = this.offset;
    this.offset += length;
    // Vocabularies hold ~400k short strings; a TextDecoder call each costs more than the string itself.
    // Validate with isUtf8 and decode with Buffer (which, like our decoder, keeps a leading U+FEFF).
    if (length <= 256 && isUtf8(this.bytes.subarray(start, start + length))) {
      return this.buffer.toString("utf8", start, start + length);
    }
    try {
      return utf8.decode(this.bytes.subarray(start, start + length));
    } catch (error) {
      throw new GgufInvalidMetadataError({ offset: start, problem: `${field} is not valid UTF-8` }, error);
    }
  }

  skip(count: number, section: string): void {
    this.require(count, section);
    this.offset += count;
  }
}
