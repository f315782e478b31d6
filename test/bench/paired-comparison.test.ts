// Rows compared run by run: ratios of the same repetition's figures, their median and spread, and the
// pairs that must be left out (a failed run, a row that did not run).
import { describe, expect, it } from "vitest";
import { comparePaired } from "../../src/bench/paired-comparison.js";
import { pairedComparisonMarkdown } from "../../src/bench/paired-comparison-table.js";
import { throughputComparisons } from "../../src/bench/throughput-benchmark.js";
import { compareFirstTokens, type TtfbRunRecord } from "../../src/bench/ttfb-benchmark.js";

describe("comparePaired", () => {
  it("divides figures of the same repetition and summarizes the ratios", () => {
    const comparison = comparePaired("a", "b", "ms", [2, 4, 6, 8, 10], [1, 2, 2, 4, 5]);
    expect(comparison.pairs).toBe(5);
    // ratios 2, 2, 3, 2, 2 → median 2; p10 and p90 interpolate between ranks
    expect(comparison.medianRatio).toBe(2);
    expect(comparison.p10Ratio).toBe(2);
    expect(comparison.p90Ratio).toBeCloseTo(2.6, 10);
    // differences 1, 2, 4, 4, 5 → median 4
    expect(comparison.medianDifference).toBe(4);
  });

  it("pairs by index, so a slow run on one side is not matched with another run's figure", () => {
    // Sorted medians would give 3/3 = 1; run by run the target is twice as slow every time.
    const comparison = comparePaired("a", "b", "ms", [2, 6, 4], [1, 3, 2]);
    expect(comparison.medianRatio).toBe(2);
    expect(comparison.p10Ratio).toBe(2);
  });

  it("drops pairs with a missing, non-finite or zero figure on either side", () => {
    const comparison = comparePaired(
      "a",
      "b",
      "ms",
      [1, null, 3, Number.NaN, 5, 6],
      [1, 2, undefined, 4, 0, 3],
    );
    expect(comparison.pairs).toBe(2);
    expect(comparison.medianRatio).toBe(1.5);
  });

  it("has null figures and renders dashes when nothing pairs up", () => {
    const comparison = comparePaired("a", "b", "ms", [1], [null]);
    expect(comparison).toMatchObject({ pairs: 0, medianRatio: null, p10Ratio: null, medianDifference: null });
    expect(pairedComparisonMarkdown([comparison], "ms")).toContain("| a | b | ms | 0 | — | — | — |");
    expect(pairedComparisonMarkdown([], "ms")).toBe("");
  });
});

describe("compareFirstTokens", () => {
  const record = (target: string, promptTokens: number, run: number, ms: number | null): TtfbRunRecord =>
    ms === null
      ? { target, promptTokens, run, position: 0, ok: false, error: "boom" }
      : { target, promptTokens, run, position: 0, ok: true, firstContentMs: ms };

  it("pairs the same length and run of two rows, leaving out failed runs", () => {
    const records = [
      record("tessera", 16, 0, 4),
      record("peer", 16, 0, 2),
      record("tessera", 16, 1, 3),
      record("peer", 16, 1, null),
      record("tessera", 16, 2, 9),
      record("peer", 16, 2, 3),
      record("tessera", 64, 0, 5),
      record("peer", 64, 0, 10),
    ];
    const comparisons = compareFirstTokens(records, [16, 64], 3, [{ target: "tessera", reference: "peer" }]);
    expect(comparisons.map((comparison) => [comparison.promptTokens, comparison.pairs])).toEqual([
      [16, 2],
      [64, 1],
    ]);
    expect(comparisons[0]!.medianRatio).toBe(2.5);
    expect(comparisons[1]!.medianRatio).toBe(0.5);
    expect(comparisons[1]!.medianDifference).toBe(-5);
  });

  it("leaves out a pair naming a row that did not run", () => {
    const records = [record("tessera", 16, 0, 4)];
    expect(compareFirstTokens(records, [16], 1, [{ target: "tessera", reference: "llama-server" }])).toEqual(
      [],
    );
  });
});

describe("throughputComparisons", () => {
  it("compares tessera with logits off to every reference that ran, and the logits modes to off", () => {
    const series = new Map([
      ["tessera, logits off", { prompt: [100, 200], generated: [90, 95] }],
      ["tessera, logits full", { prompt: [100, 200], generated: [45, 95] }],
      ["greedy runner (C++)", { prompt: [200, 200], generated: [100, 100] }],
      ["tg on the prebuilt libraries (C++)", { prompt: [], generated: [180, 190] }],
      ["llama-bench", { prompt: [], generated: [] }],
    ]);
    const comparisons = throughputComparisons(series);
    const find = (reference: string, figure: string) =>
      comparisons.find(
        (comparison) => comparison.reference === reference && comparison.figure.startsWith(figure),
      );
    expect(find("greedy runner (C++)", "generation")?.medianRatio).toBeCloseTo(0.925, 10);
    expect(find("greedy runner (C++)", "prompt")?.medianRatio).toBe(0.75);
    expect(find("tg on the prebuilt libraries (C++)", "generation")?.medianRatio).toBe(0.5);
    // llama-bench has no figures (not built): no line for it, rather than a line of dashes.
    expect(comparisons.some((comparison) => comparison.reference === "llama-bench")).toBe(false);
    const full = comparisons.find((comparison) => comparison.target === "tessera, logits full");
    expect(full?.medianRatio).toBe(0.75);
  });
});
