// The concurrent row's arithmetic: several requests at once, one figure per run (the median of their
// first tokens), and every request with its own prompt. The inner target is a stand-in that reports
// arrival times it is told (control flow only; the real server is in serve-first-token-stages.test.ts).
import { describe, expect, it } from "vitest";
import type { BenchTarget, StreamObserver, StreamRequest } from "../../src/bench/bench-target.js";
import { ConcurrentTarget } from "../../src/bench/targets/concurrent-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";

/** Answers prompt "… (n)" with one piece whose arrival is n × 10 ms after the request, and records prompts. */
class DelayedTarget implements BenchTarget {
  readonly name = "delayed";
  readonly transport = "http" as const;
  readonly prompts: string[] = [];
  async prepare(): Promise<void> {}
  async close(): Promise<void> {}
  async stream(request: StreamRequest, observer: StreamObserver) {
    this.prompts.push(request.prompt);
    const index = Number(/\((\d+)\)$/.exec(request.prompt)?.[1]);
    observer.content("x", performance.now() + index * 10);
    return { completionTokens: 1 };
  }
}

describe("ConcurrentTarget", () => {
  it("reports the median of the requests' first tokens, not the fastest", async () => {
    const inner = new DelayedTarget();
    const result = await runTtfbBenchmark([new ConcurrentTarget(inner, 4)], {
      promptTokens: [16],
      runs: 3,
      maxTokens: 4,
      warmupRuns: 0,
    });
    // Arrivals at 10, 20, 30 and 40 ms: the median is 25 ms (the fastest would be 10).
    for (const run of result.runs) {
      expect(run.firstContentMs!).toBeGreaterThanOrEqual(25);
      expect(run.firstContentMs!).toBeLessThan(35);
    }
    expect(result.rows[0]!.tokensPerSecond.count).toBe(0);
  });

  it("gives each request of a run its own prompt", async () => {
    const inner = new DelayedTarget();
    await runTtfbBenchmark([new ConcurrentTarget(inner, 4)], {
      promptTokens: [16],
      runs: 1,
      maxTokens: 4,
      warmupRuns: 0,
    });
    expect(new Set(inner.prompts).size).toBe(4);
  });
});
