// IEEE half-precision conversion. Node 20 has no Float16Array, so this is integer bit work:
// round-to-nearest-even like ggml's `ggml_compute_fp32_to_fp16`, overflow to infinity, NaN kept NaN.

const scratchFloat = new Float32Array(1);
const scratchBits = new Int32Array(scratchFloat.buffer);

// Fabian Giesen's float_to_half_fast3_rtne: normal numbers round by integer addition (0xfff plus the
// lowest kept bit gives ties-to-even); subnormal results let the FPU do the rounding by adding a magic
// number whose exponent aligns the mantissa.
const denormalMagicBits = (127 - 15 + (23 - 10) + 1) << 23;
scratchBits[0] = denormalMagicBits;
const denormalMagic = scratchFloat[0]!;
const float16OverflowBits = (127 + 16) << 23;
const infinityBits = 255 << 23;
const smallestNormalHalfBits = 113 << 23;

/** Half-precision bits of the float32 whose bits are `bits` (int32 or uint32 alike). */
export function float32BitsToFloat16(bits: number): number {
  const sign = (bits >>> 16) & 0x8000;
  let magnitude = bits & 0x7fffffff;
  let half: number;
  if (magnitude >= float16OverflowBits) half = magnitude > infinityBits ? 0x7e00 : 0x7c00;
  else if (magnitude < smallestNormalHalfBits) {
    scratchBits[0] = magnitude;
    scratchFloat[0] = scratchFloat[0]! + denormalMagic;
    half = scratchBits[0]! - denormalMagicBits;
  } else {
    const mantissaOdd = (magnitude >>> 13) & 1;
    magnitude += ((15 - 127) << 23) + 0xfff + mantissaOdd;
    half = magnitude >>> 13;
  }
  return half | sign;
}

export function float32ToFloat16(value: number): number {
  scratchFloat[0] = value;
  return float32BitsToFloat16(scratchBits[0]!);
}

/** Converts a whole array; `target` must have at least `source.length` elements. */
export function float32ArrayToFloat16(source: Float32Array, target: Uint16Array): void {
  // Int32Array, not Uint32Array: V8 keeps int32 loads unboxed; uint32 values above 2^31 (every negative
  // float) would become heap numbers and make this loop several times slower.
  const bits = new Int32Array(source.buffer, source.byteOffset, source.length);
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
