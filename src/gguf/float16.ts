// IEEE half-precision conversion. Node 20 has no Float16Array, so this is integer bit work:
// round-to-nearest-even like ggml's `ggml_compute_fp32_to_fp16`, overflow to infinity, NaN kept NaN.

const scratchFloat = new Float32Array(1);
const scratchBits = new Uint32Array(scratchFloat.buffer);

/** Half-precision bits of the float32 whose bits are `bits`. */
export function float32BitsToFloat16(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 31) return sign | 0x7c00;
  if (halfExponent <= 0) {
    if (halfExponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - halfExponent;
    const half = 1 << (shift - 1);
    let rounded = mantissa >>> shift;
    const remainder = mantissa & ((1 << shift) - 1);
    if (remainder > half || (remainder === half && (rounded & 1) === 1)) rounded++;
    return sign | rounded;
  }
  let rounded = (halfExponent << 10) | (mantissa >>> 13);
  const remainder = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (and reaches infinity at the top).
  if (remainder > 0x1000 || (remainder === 0x1000 && (rounded & 1) === 1)) rounded++;
  return sign | rounded;
}

export function float32ToFloat16(value: number): number {
  scratchFloat[0] = value;
  return float32BitsToFloat16(scratchBits[0]!);
}

/** Converts a whole array; `target` must have at least `source.length` elements. */
export function float32ArrayToFloat16(source: Float32Array, target: Uint16Array): void {
  const bits = new Uint32Array(source.buffer, source.byteOffset, source.length);
  for (let index = 0; index < bits.length; index++) target[index] = float32BitsToFloat16(bits[index]!);
}

let float16Table: Float32Array | undefined;

/** Float value of half-precision bits (a 65536-entry table built on first use: 256 KiB). */
export function float16ToFloat32(half: number): number {
  if (float16Table === undefined) float16Table = buildFloat16Table();
  return float16Table[half & 0xffff]!;
}

function buildFloat16Table(): Float32Array {
  const table = new Float32Array(65536);
  for (let half = 0; half < 65536; half++) {
    const sign = half & 0x8000 ? -1 : 1;
    const exponent = (half >>> 10) & 0x1f;
    const mantissa = half & 0x3ff;
    if (exponent === 0) table[half] = sign * mantissa * 2 ** -24;
    else if (exponent === 31) table[half] = mantissa === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
    else table[half] = sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return table;
}
