// Q8_0: blocks of 32 values as one f16 scale d = max|x| / 127 and 32 int8 q = round(x / d),
// exactly as ggml's `quantize_row_q8_0_ref`, so llama.cpp reads back x ≈ d·q.
import { float16ToFloat32, float32ToFloat16 } from "./float16.js";

export const q8BlockSize = 32;
export const q8BlockBytes = 34;

// C `roundf`: halves go away from zero (Math.round sends -0.5 to 0). |value| ≤ 127.5 here, so `| 0`
// is an exact floor of the non-negative sum.
function roundHalfAway(value: number): number {
  return value >= 0 ? (value + 0.5) | 0 : -((0.5 - value) | 0);
}

/** Quantizes `source` (length a multiple of 32) into `target` (length / 32 · 34 bytes). */
export function quantizeQ8_0(source: Float32Array, target: Uint8Array): void {
  const signed = new Int8Array(target.buffer, target.byteOffset, target.byteLength);
  const blocks = source.length / q8BlockSize;
  for (let block = 0; block < blocks; block++) {
    const start = block * q8BlockSize;
    let maximum = 0;
    for (let index = 0; index < q8BlockSize; index++) {
      const value = source[start + index]!;
      const magnitude = value < 0 ? -value : value;
      if (magnitude > maximum) maximum = magnitude;
    }
    const scale = Math.fround(maximum / 127);
    const inverse = scale === 0 ? 0 : Math.fround(1 / scale);
    const out = block * q8BlockBytes;
    const half = float32ToFloat16(scale);
    target[out] = half & 0xff;
    target[out + 1] = half >>> 8;
    for (let index = 0; index < q8BlockSize; index++) {
      signed[out + 2 + index] = roundHalfAway(Math.fround(source[start + index]! * inverse));
    }
  }
}

export function dequantizeQ8_0(source: Uint8Array, elementCount: number): Float32Array {
  const view = new DataView(source.buffer, source.byteOffset, source.byteLength);
  const values = new Float32Array(elementCount);
  for (let block = 0; block < elementCount / q8BlockSize; block++) {
    const offset = block * q8BlockBytes;
    const scale = float16ToFloat32(view.getUint16(offset, true));
    for (let index = 0; index < q8BlockSize; index++) {
      values[block * q8BlockSize + index] = scale * view.getInt8(offset + 2 + index);
    }
  }
  return values;
}
