// The concurrent row's arithmetic: several requests at once, one figure per run (the median of their
// first tokens), and every request with its own prompt. The inner target is a stand-in that reports
// arrival times it is told (control flow only; the real server is in serve-first-token-stages.test.ts).
import { describe, expect, it } from "vitest";
import type { BenchTarget, StreamObserver, StreamRequest } from "../../src/bench/bench-target.js";
import { ConcurrentTarget } from "../../src/bench/targets/concurrent-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";

/** Answers prompt "(n) …" with one piece whose arrival is n × 10 ms after the request, and records prompts. */
class DelayedTarget implements BenchTarget {
  readonly name = "delayed";
  readonly transport = "http" as const;
  readonly prompts: string[] = [];
  async prepare(): Promise<void> {}
  async close(): Promise<void> {}
  async stream(request: StreamRequest, observer: StreamObserver) {
    this.prompts.push(request.prompt);
    const index = Number(/^\((\d+)\) /.exec(request.prompt)?.[1]);
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

  it("gives each request of a run its own prompt, different from the first character", async () => {
    const inner = new DelayedTarget();
    await runTtfbBenchmark([new ConcurrentTarget(inner, 4)], {
      promptTokens: [16],
      runs: 1,
      maxTokens: 4,
      warmupRuns: 0,
    });
    expect(new Set(inner.prompts).size).toBe(4);
    // No shared prefix past the opening parenthesis: a server that reuses cached prefixes across its slots
    // would otherwise prefill the rest once for all four.
    expect(new Set(inner.prompts.map((prompt) => prompt.slice(0, 3))).size).toBe(4);
  });

  it("stops the other requests of a run when one fails, and reports that one's error", async () => {
    const stopped: string[] = [];
    const inner: BenchTarget = {
      name: "one fails",
      transport: "http",
      async prepare() {},
      async close() {},
      async stream(request) {
        if (request.prompt.startsWith("(2) ")) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw new Error("the server sent an error event");
        }
        // The others stream until they are stopped.
        await new Promise((_, reject) => {
          request.signal.addEventListener("abort", () => {
            stopped.push(request.prompt.slice(0, 3));
            reject(new Error("aborted"));
          });
        });
        return { completionTokens: 1 };
      },
    };
    const result = await runTtfbBenchmark([new ConcurrentTarget(inner, 4)], {
      promptTokens: [16],
      runs: 1,
      maxTokens: 4,
      warmupRuns: 0,
      runTimeoutMs: 10_000,
    });
    expect(result.runs[0]).toMatchObject({ ok: false, error: "the server sent an error event" });
    expect(stopped.sort()).toEqual(["(1)", "(3)", "(4)"]);
  });
});
