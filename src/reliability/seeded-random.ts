// A small deterministic random source (mulberry32): the same seed gives the same fuzz corpus and the
// same abort moments on every machine, so a failure found once can be replayed by its case number.

export class SeededRandom {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let mixed = this.#state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, limit). */
  integer(limit: number): number {
    return Math.floor(this.next() * limit);
  }

  /** An integer in [minimum, maximum]. */
  between(minimum: number, maximum: number): number {
    return minimum + this.integer(maximum - minimum + 1);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick() needs at least one item");
    return items[this.integer(items.length)]!;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

/** A seed for case `index` of a run seeded with `runSeed` (independent streams per case). */
export function caseSeed(runSeed: number, index: number): number {
  return (Math.imul(runSeed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index + 1, 0xc2b2ae35)) >>> 0;
}
