// The rows' order within each run of `bench ttfb`: shuffled anew each run by default (so no row always
// follows the same neighbour), reproducible from the recorded seed, or fixed as listed on request. The
// targets here are plain objects that record when they are called: this is the schedule's control flow,
// not a measurement.
import { describe, expect, it } from "vitest";
import type { BenchTarget } from "../../src/bench/bench-target.js";
import { runOrders } from "../../src/bench/run-order.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";

function recordingTargets(names: string[], calls: string[]): BenchTarget[] {
  return names.map((name) => ({
    name,
    transport: "in-process" as const,
    async prepare() {},
    async close() {},
    async stream(_request, observer) {
      calls.push(name);
      observer.firstByte();
      observer.content("x");
      return { completionTokens: 1 };
    },
  }));
}

describe("run orders", () => {
  it("are permutations, each row in every place over many runs, replayed from the same seed", () => {
    const next = runOrders(4, "shuffled", 12345);
    const again = runOrders(4, "shuffled", 12345);
    const places = Array.from({ length: 4 }, () => new Set<number>());
    let differentFromListed = 0;
    for (let run = 0; run < 200; run++) {
      const order = next();
      expect([...order].sort()).toEqual([0, 1, 2, 3]);
      expect(again()).toEqual(order);
      for (const [place, row] of order.entries()) places[row]!.add(place);
      if (order.join() !== "0,1,2,3") differentFromListed++;
    }
    for (const seen of places) expect([...seen].sort()).toEqual([0, 1, 2, 3]);
    // 1 run in 24 may come out as listed; 200 runs that mostly do would mean no shuffle.
    expect(differentFromListed).toBeGreaterThan(150);
  });

  it("fixed: as listed, every run", () => {
    const next = runOrders(3, "fixed", 7);
    for (let run = 0; run < 5; run++) expect(next()).toEqual([0, 1, 2]);
  });
});

describe("bench ttfb's schedule", () => {
  it("runs every row once per run, in the recorded order and seed, and records each row's place", async () => {
    const calls: string[] = [];
    const names = ["a", "b", "c", "d"];
    const result = await runTtfbBenchmark(recordingTargets(names, calls), {
      promptTokens: [8],
      runs: 30,
      maxTokens: 1,
      warmupRuns: 0,
      orderSeed: 99,
    });
    expect(result.settings.order).toBe("shuffled");
    expect(result.settings.orderSeed).toBe(99);
    const expected = runOrders(4, "shuffled", 99);
    for (let run = 0; run < 30; run++) {
      const slice = calls.slice(run * 4, run * 4 + 4);
      expect(slice).toEqual(expected().map((index) => names[index]));
      for (const record of result.runs.filter((record) => record.run === run)) {
        expect(slice[record.position]).toBe(record.target);
      }
    }
    // Not the listed order every time: "b" does not always follow "a".
    expect(new Set(result.runs.filter((record) => record.target === "a").map((r) => r.position)).size).toBe(
      4,
    );
  });

  it("keeps the listed order with order: fixed", async () => {
    const calls: string[] = [];
    const result = await runTtfbBenchmark(recordingTargets(["a", "b", "c"], calls), {
      promptTokens: [8],
      runs: 5,
      maxTokens: 1,
      warmupRuns: 0,
      order: "fixed",
    });
    expect(calls.join("")).toBe("abc".repeat(5));
    expect(result.settings.order).toBe("fixed");
    expect(result.settings.orderSeed).toBeNull();
  });
});
