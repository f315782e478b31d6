// A growable little-endian byte buffer for encoding GGUF headers (a 128k-token vocabulary makes a
// header of several MB, so it doubles instead of growing by each value).

const utf8 = new TextEncoder();

export class ByteSink {
  private bytes = new Uint8Array(1 << 16);
  private view = new DataView(this.bytes.buffer);
  length = 0;

  // Returns where `count` new bytes start. Callers must call it before touching `bytes` or `view`:
  // it may replace both.
  private reserve(count: number): number {
    const start = this.length;
    if (start + count > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, start + count));
      grown.set(this.bytes.subarray(0, start));
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    }
    this.length += count;
    return start;
  }

  uint8(value: number): void {
    const at = this.reserve(1);
    this.view.setUint8(at, value);
  }
  int8(value: number): void {
    const at = this.reserve(1);
    this.view.setInt8(at, value);
  }
  uint16(value: number): void {
    const at = this.reserve(2);
    this.view.setUint16(at, value, true);
  }
  int16(value: number): void {
    const at = this.reserve(2);
    this.view.setInt16(at, value, true);
  }
  uint32(value: number): void {
    const at = this.reserve(4);
    this.view.setUint32(at, value, true);
  }
  int32(value: number): void {
    const at = this.reserve(4);
    this.view.setInt32(at, value, true);
  }
  float32(value: number): void {
    const at = this.reserve(4);
    this.view.setFloat32(at, value, true);
  }
  float64(value: number): void {
    const at = this.reserve(8);
    this.view.setFloat64(at, value, true);
  }
  uint64(value: bigint): void {
    const at = this.reserve(8);
    this.view.setBigUint64(at, value, true);
  }
  int64(value: bigint): void {
    const at = this.reserve(8);
    this.view.setBigInt64(at, value, true);
  }

  string(value: string): void {
    const encoded = utf8.encode(value);
    this.uint64(BigInt(encoded.length));
    const at = this.reserve(encoded.length);
    this.bytes.set(encoded, at);
  }

  padTo(alignment: number): void {
    const padded = Math.ceil(this.length / alignment) * alignment;
    const at = this.reserve(padded - this.length);
    this.bytes.fill(0, at, padded);
  }

  toBytes(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }
}
