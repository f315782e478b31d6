// Q4_0: blocks of 32 values as one f16 scale d = m / -8 (m: the value of largest magnitude, signed)
// and 32 nibbles q = min(15, trunc(x / d + 8.5)), as ggml's `quantize_row_q4_0_ref`; llama.cpp reads
// back x ≈ (q - 8)·d. Byte j holds element j in its low nibble and element j + 16 in its high nibble.
import { float16ToFloat32, float32ToFloat16 } from "./float16.js";

export const q4BlockSize = 32;
export const q4BlockBytes = 18;

/** Quantizes `source` (length a multiple of 32) into `target` (length / 32 · 18 bytes). */
export function quantizeQ4_0(source: Float32Array, target: Uint8Array): void {
  const blocks = source.length / q4BlockSize;
  const half = q4BlockSize / 2;
  for (let block = 0; block < blocks; block++) {
    const start = block * q4BlockSize;
    let largestMagnitude = 0;
    let largest = 0;
    for (let index = 0; index < q4BlockSize; index++) {
      const value = source[start + index]!;
      const magnitude = value < 0 ? -value : value;
      if (magnitude > largestMagnitude) {
        largestMagnitude = magnitude;
        largest = value;
      }
    }
    const scale = Math.fround(largest / -8);
    const inverse = scale === 0 ? 0 : Math.fround(1 / scale);
    const out = block * q4BlockBytes;
    const scaleBits = float32ToFloat16(scale);
    target[out] = scaleBits & 0xff;
    target[out + 1] = scaleBits >>> 8;
    for (let index = 0; index < half; index++) {
      // As ggml: the sum is a float32 (it can round up to the next integer), then truncated. It lies in
      // [0.5, 16.5], so `| 0` truncates.
      const low = Math.fround(Math.fround(source[start + index]! * inverse) + 8.5) | 0;
      const high = Math.fround(Math.fround(source[start + half + index]! * inverse) + 8.5) | 0;
      target[out + 2 + index] = Math.min(15, low) | (Math.min(15, high) << 4);
    }
  }
}

export function dequantizeQ4_0(source: Uint8Array, elementCount: number): Float32Array {
  const view = new DataView(source.buffer, source.byteOffset, source.byteLength);
  const values = new Float32Array(elementCount);
  const half = q4BlockSize / 2;
  for (let block = 0; block < elementCount / q4BlockSize; block++) {
    const offset = block * q4BlockBytes;
    const scale = float16ToFloat32(view.getUint16(offset, true));
    for (let index = 0; index < half; index++) {
      const byte = source[offset + 2 + index]!;
      values[block * q4BlockSize + index] = ((byte & 0x0f) - 8) * scale;
      values[block * q4BlockSize + half + index] = ((byte >>> 4) - 8) * scale;
    }
  }
  return values;
}
