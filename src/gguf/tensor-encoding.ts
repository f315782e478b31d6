// Encodes float32 values into the bytes of one of the four tensor types we write, and back.
import { float16ToFloat32, float32ArrayToFloat16 } from "./float16.js";
import { ggmlRowBytes } from "./ggml-type.js";
import { dequantizeQ4_0, quantizeQ4_0 } from "./quantize-q4-0.js";
import { dequantizeQ8_0, quantizeQ8_0 } from "./quantize-q8-0.js";

export const writableTensorTypes = ["F32", "F16", "Q8_0", "Q4_0"] as const;
export type WritableTensorType = (typeof writableTensorTypes)[number];

/** The writable type spelled `text`, in any case (`q4_0`, `Q4_0`); undefined for anything else. */
export function writableTensorTypeNamed(text: string): WritableTensorType | undefined {
  const wanted = text.toLowerCase();
  return writableTensorTypes.find((type) => type.toLowerCase() === wanted);
}

/** Bytes needed for `elementCount` values (a multiple of the type's block size). */
export function encodedByteLength(type: WritableTensorType, elementCount: number): number {
  const bytes = ggmlRowBytes(type, elementCount);
  if (bytes === undefined) throw new RangeError(`${elementCount} values are not whole ${type} blocks`);
  return bytes;
}

/** Writes the encoding of `values` into `target` (at least `encodedByteLength` bytes). */
export function encodeTensorValues(type: WritableTensorType, values: Float32Array, target: Uint8Array): void {
  switch (type) {
    case "F32":
      // Little-endian hosts only (x64, arm64): the in-memory bytes are the file bytes.
      target.set(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
      return;
    case "F16":
      float32ArrayToFloat16(values, new Uint16Array(target.buffer, target.byteOffset, values.length));
      return;
    case "Q8_0":
      quantizeQ8_0(values, target);
      return;
    case "Q4_0":
      quantizeQ4_0(values, target);
      return;
  }
}

export function decodeTensorValues(
  type: WritableTensorType,
  bytes: Uint8Array,
  elementCount: number,
): Float32Array {
  switch (type) {
    case "F32":
      return new Float32Array(bytes.slice(0, elementCount * 4).buffer);
    case "F16": {
      const halves = new Uint16Array(bytes.slice(0, elementCount * 2).buffer);
      return Float32Array.from(halves, (half) => float16ToFloat32(half));
    }
    case "Q8_0":
      return dequantizeQ8_0(bytes, elementCount);
    case "Q4_0":
      return dequantizeQ4_0(bytes, elementCount);
  }
}
