// Seeded N(0, sigma) numbers, fast enough to fill a 16 GB model. A xoshiro128** generator supplies
// 32 random bits; each 16-bit half picks one of 65536 equal-probability quantiles of the normal
// distribution, so one generator step yields two normal draws with no logarithm or cosine per value.
// The speed of llama.cpp does not depend on weight values, and this keeps the shape of N(0, sigma).

const quantileCount = 65536;
let standardQuantiles: Float64Array | undefined;

// Acklam's rational approximation of the inverse normal CDF (relative error < 1.2e-9).
function inverseNormal(probability: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (probability < low) {
    const q = Math.sqrt(-2 * Math.log(probability));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (probability > 1 - low) return -inverseNormal(1 - probability);
  const q = probability - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

function quantiles(): Float64Array {
  if (standardQuantiles === undefined) {
    standardQuantiles = new Float64Array(quantileCount);
    for (let index = 0; index < quantileCount; index++) {
      standardQuantiles[index] = inverseNormal((index + 0.5) / quantileCount);
    }
  }
  return standardQuantiles;
}

/** 32-bit FNV-1a of a string, to derive independent streams (one per tensor) from one seed. */
export function hashString(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export class SeededNormalSource {
  private state0: number;
  private state1: number;
  private state2: number;
  private state3: number;
  private readonly table: Float32Array;

  constructor(seed: number, standardDeviation: number) {
    // splitmix32 spreads the seed over the four state words (xoshiro must not start all-zero).
    let mix = seed >>> 0;
    const next = (): number => {
      mix = (mix + 0x9e3779b9) >>> 0;
      let z = mix;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.state0 = next();
    this.state1 = next();
    this.state2 = next();
    this.state3 = next() | 1;
    const standard = quantiles();
    this.table = new Float32Array(quantileCount);
    for (let index = 0; index < quantileCount; index++)
      this.table[index] = standard[index]! * standardDeviation;
  }

  /** Next 32 random bits (xoshiro128**). */
  nextUint32(): number {
    const result = Math.imul(rotateLeft(Math.imul(this.state1, 5), 7), 9) >>> 0;
    const shifted = this.state1 << 9;
    this.state2 ^= this.state0;
    this.state3 ^= this.state1;
    this.state1 ^= this.state2;
    this.state0 ^= this.state3;
    this.state2 ^= shifted;
    this.state3 = rotateLeft(this.state3, 11);
    return result;
  }

  /** Fills `target` with draws from N(0, standardDeviation). */
  fill(target: Float32Array): void {
    const table = this.table;
    const length = target.length;
    // The generator is inlined on local state: this loop fills gigabytes, a method call per value costs 2x.
    let state0 = this.state0;
    let state1 = this.state1;
    let state2 = this.state2;
    let state3 = this.state3;
    let index = 0;
    while (index < length) {
      const product = Math.imul(state1, 5);
      const bits = Math.imul((product << 7) | (product >>> 25), 9);
      const shifted = state1 << 9;
      state2 ^= state0;
      state3 ^= state1;
      state1 ^= state2;
      state0 ^= state3;
      state2 ^= shifted;
      state3 = (state3 << 11) | (state3 >>> 21);
      target[index++] = table[bits & 0xffff]!;
      if (index < length) target[index++] = table[bits >>> 16]!;
    }
    this.state0 = state0;
    this.state1 = state1;
    this.state2 = state2;
    this.state3 = state3;
  }
}

function rotateLeft(value: number, count: number): number {
  return (value << count) | (value >>> (32 - count));
}
