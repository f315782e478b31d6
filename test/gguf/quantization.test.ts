import { describe, expect, it } from "vitest";
import { float16ToFloat32, float32ToFloat16 } from "../../src/gguf/float16.js";
import { dequantizeQ4_0, quantizeQ4_0 } from "../../src/gguf/quantize-q4-0.js";
import { dequantizeQ8_0, quantizeQ8_0 } from "../../src/gguf/quantize-q8-0.js";
import { SeededNormalSource } from "../../src/gguf/seeded-normal-source.js";
import { decodeTensorValues, encodedByteLength, encodeTensorValues } from "../../src/gguf/tensor-encoding.js";

function normals(count: number, seed: number, standardDeviation = 0.02): Float32Array {
  const values = new Float32Array(count);
  new SeededNormalSource(seed, standardDeviation).fill(values);
  return values;
}

function blockMaxima(values: Float32Array): Float32Array {
  const maxima = new Float32Array(values.length / 32);
  for (let index = 0; index < values.length; index++) {
    const block = Math.floor(index / 32);
    maxima[block] = Math.max(maxima[block]!, Math.abs(values[index]!));
  }
  return maxima;
}

describe("float16 conversion", () => {
  it("round-trips exactly representable values and rounds to nearest even", () => {
    for (const value of [0, 1, -2, 0.5, 65504, -65504, 2 ** -14, 2 ** -24, 0.0999755859375]) {
      expect(float16ToFloat32(float32ToFloat16(value))).toBeCloseTo(value, 10);
    }
    expect(float32ToFloat16(1)).toBe(0x3c00);
    expect(float32ToFloat16(-2)).toBe(0xc000);
    // 1 + 2^-11 is exactly between 1 and the next half (1 + 2^-10): ties go to the even mantissa, 1.
    expect(float32ToFloat16(1 + 2 ** -11)).toBe(0x3c00);
    expect(float32ToFloat16(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(float32ToFloat16(65520)).toBe(0x7c00); // rounds past the largest half: infinity
    expect(float32ToFloat16(Number.POSITIVE_INFINITY)).toBe(0x7c00);
    expect(Number.isNaN(float16ToFloat32(float32ToFloat16(Number.NaN)))).toBe(true);
    expect(float32ToFloat16(2 ** -26)).toBe(0); // below half the smallest subnormal
  });

  it("has relative error at most 2^-11 over the normal range", () => {
    const values = normals(100_000, 3, 10);
    let worstRatio = 0;
    for (const value of values) {
      if (Math.abs(value) < 2 ** -14) continue;
      const error = Math.abs(float16ToFloat32(float32ToFloat16(value)) - value);
      worstRatio = Math.max(worstRatio, error / Math.abs(value));
    }
    expect(worstRatio).toBeGreaterThan(0);
    expect(worstRatio).toBeLessThanOrEqual(2 ** -11);
  });
});

describe("Q8_0", () => {
  it("stores finite scales and reconstructs each value within half a step of its block", () => {
    const values = normals(32 * 1000, 7);
    const bytes = new Uint8Array(34 * 1000);
    quantizeQ8_0(values, bytes);
    const restored = dequantizeQ8_0(bytes, values.length);
    const maxima = blockMaxima(values);
    let worstExcess = Number.NEGATIVE_INFINITY;
    for (let index = 0; index < values.length; index++) {
      const step = maxima[Math.floor(index / 32)]! / 127;
      // Half a quantization step, plus the f16 rounding of the scale over at most 127 steps.
      const bound = step * 0.5 + 127 * step * 2 ** -11 + 1e-9;
      worstExcess = Math.max(worstExcess, Math.abs(restored[index]! - values[index]!) - bound);
    }
    expect(worstExcess).toBeLessThanOrEqual(0);
    for (let block = 0; block < 1000; block++) {
      const scale = float16ToFloat32(bytes[block * 34]! | (bytes[block * 34 + 1]! << 8));
      expect(Number.isFinite(scale)).toBe(true);
      expect(scale).toBeGreaterThan(0);
    }
  });

  it("encodes an all-zero block as zero scale and zeros", () => {
    const bytes = new Uint8Array(34).fill(0xff);
    quantizeQ8_0(new Float32Array(32), bytes);
    expect([...bytes]).toEqual(new Array(34).fill(0));
  });
});

describe("Q4_0", () => {
  it("reconstructs each value within one step of its block (d = max / 8)", () => {
    const values = normals(32 * 1000, 11);
    const bytes = new Uint8Array(18 * 1000);
    quantizeQ4_0(values, bytes);
    const restored = dequantizeQ4_0(bytes, values.length);
    const maxima = blockMaxima(values);
    let squaredError = 0;
    let worstExcess = Number.NEGATIVE_INFINITY;
    for (let index = 0; index < values.length; index++) {
      const step = maxima[Math.floor(index / 32)]! / 8;
      // Rounding costs half a step; the top bucket is clamped at 7·d on the side opposite the maximum,
      // which can cost up to one step; the f16 scale adds at most 8 · step · 2^-11.
      const bound = step + 8 * step * 2 ** -11 + 1e-9;
      const error = restored[index]! - values[index]!;
      worstExcess = Math.max(worstExcess, Math.abs(error) - bound);
      squaredError += error * error;
    }
    expect(worstExcess).toBeLessThanOrEqual(0);
    // Rounding to a uniform grid has RMS error step/√12 ≈ 0.29·step; a broken scale would be far above.
    const meanStep = maxima.reduce((total, maximum) => total + maximum / 8, 0) / maxima.length;
    expect(Math.sqrt(squaredError / values.length)).toBeLessThan(meanStep * 0.31);
  });

  it("reproduces the block's largest value exactly up to the f16 scale", () => {
    const values = normals(32, 5);
    let largest = 0;
    for (const value of values) if (Math.abs(value) > Math.abs(largest)) largest = value;
    const bytes = new Uint8Array(18);
    quantizeQ4_0(values, bytes);
    const restored = dequantizeQ4_0(bytes, 32);
    const index = values.indexOf(largest);
    expect(Math.abs(restored[index]! - largest)).toBeLessThanOrEqual(Math.abs(largest) * 2 ** -10);
  });
});

describe("tensor encoding", () => {
  it("round-trips through every writable type within its bound", () => {
    const values = normals(32 * 64, 13);
    const bounds = { F32: 0, F16: 0.02 * 5 * 2 ** -11, Q8_0: 0.02 * 5 * 0.01, Q4_0: 0.02 * 5 * 0.15 };
    for (const [type, bound] of Object.entries(bounds) as [keyof typeof bounds, number][]) {
      const bytes = new Uint8Array(encodedByteLength(type, values.length));
      encodeTensorValues(type, values, bytes);
      const restored = decodeTensorValues(type, bytes, values.length);
      const worst = values.reduce(
        (maximum, value, index) => Math.max(maximum, Math.abs(value - restored[index]!)),
        0,
      );
      expect(worst, type).toBeLessThanOrEqual(bound);
    }
  });
});

describe("seeded normal source", () => {
  it("is deterministic and has the requested mean and deviation", () => {
    const first = normals(200_000, 42);
    expect(Buffer.from(normals(200_000, 42).buffer).equals(Buffer.from(first.buffer))).toBe(true);
    expect(normals(1000, 43)).not.toEqual(first.subarray(0, 1000));
    const mean = first.reduce((total, value) => total + value, 0) / first.length;
    const deviation = Math.sqrt(
      first.reduce((total, value) => total + (value - mean) ** 2, 0) / first.length,
    );
    expect(Math.abs(mean)).toBeLessThan(0.0005);
    expect(deviation).toBeGreaterThan(0.0195);
    expect(deviation).toBeLessThan(0.0205);
  });
});
