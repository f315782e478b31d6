// A run's time limit survives garbage collection: AbortSignal.any([outer, AbortSignal.timeout(ms)]) holds
// its sources weakly on Node 20, and after a full collection a stalled run waited forever.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import type { BenchTarget } from "../../src/bench/bench-target.js";
import { runDeadline } from "../../src/bench/run-deadline.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A target that answers only when its request is aborted: a stalled server. */
const stalled: BenchTarget = {
  name: "stalled",
  transport: "http",
  async prepare() {},
  async close() {},
  stream: (request) =>
    new Promise((_, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason))),
};

describe("run deadlines", () => {
  it("end a stalled run with an outer signal given, through full garbage collections", async () => {
    const collecting = setInterval(gc, 5);
    try {
      const started = performance.now();
      const result = await runTtfbBenchmark([stalled], {
        promptTokens: [16],
        runs: 1,
        maxTokens: 2,
        warmupRuns: 0,
        runTimeoutMs: 200,
        signal: new AbortController().signal,
      });
      expect(result.runs[0]).toMatchObject({ ok: false, error: "timed out after 200 ms" });
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      clearInterval(collecting);
    }
    // Without the fix the run never ends: fail in seconds, not at the suite's limit.
  }, 10_000);

  it("follow the outer signal, say which one fired, and stop their timer when cleared", async () => {
    const outer = new AbortController();
    const deadline = runDeadline(10_000, outer.signal);
    outer.abort(new Error("interrupted"));
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toEqual(new Error("interrupted"));
    expect(deadline.expired).toBe(false);
    deadline.clear();

    const short = runDeadline(20);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(short.expired).toBe(true);
    expect((short.signal.reason as DOMException).name).toBe("TimeoutError");

    const cleared = runDeadline(20);
    cleared.clear();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(cleared.signal.aborted).toBe(false);
  });
});
