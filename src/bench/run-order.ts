// The order the rows of one benchmark run take. A fixed order puts every row always right after the same
// neighbour, whose leftovers (a child process still writing its report, a server's after-response work, a
// garbage collection) then land on that row in every run: on a 2-core machine that moved `tessera serve`
// ÷ llama-server by several percent. A new shuffle each run spreads such costs over all rows alike.

/** How the rows of each run are ordered: as listed, or shuffled anew for every run. */
export type RunOrder = "shuffled" | "fixed";

/** A small seeded generator (mulberry32): the same seed gives the same orders, so a run can be replayed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Hands out one order per run: indexes 0..count-1, shuffled (Fisher-Yates) or as listed. */
export function runOrders(count: number, order: RunOrder, seed: number): () => number[] {
  const random = seededRandom(seed);
  return () => {
    const indexes = Array.from({ length: count }, (_, index) => index);
    if (order === "fixed") return indexes;
    for (let index = count - 1; index > 0; index--) {
      const other = Math.floor(random() * (index + 1));
      [indexes[index], indexes[other]] = [indexes[other]!, indexes[index]!];
    }
    return indexes;
  };
}
