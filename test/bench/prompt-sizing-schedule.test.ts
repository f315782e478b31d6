// `bench ttfb` sizes its prompts by tokenizing them with one row's own model. Done right before a run,
// that left the row's tokenizer tables in the CPU's caches and every other row's cold: in the server-rows
// runs of 2026-12-03, tessera in-process (the sizing model's row) tokenized 16 tokens in 0.054 ms and
// `tessera serve`, the same code in another process, in 0.139 ms. Every prompt of a length is therefore
// sized before that length's first run. The targets are plain recorders: this is the schedule's control
// flow, not a measurement.
import { describe, expect, it } from "vitest";
import type { BenchTarget } from "../../src/bench/bench-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";

describe("bench ttfb's prompt sizing", () => {
  it("tokenizes every prompt of a length before that length's first run, and gives each run its own prompt", async () => {
    const events: string[] = [];
    const prompts: string[] = [];
    const targets: BenchTarget[] = ["a", "b", "c"].map((name) => ({
      name,
      transport: "in-process" as const,
      async prepare() {},
      async close() {},
      async stream(request, observer) {
        events.push(`run ${name}`);
        prompts.push(request.prompt);
        observer.firstByte();
        observer.content("x");
        return { completionTokens: 1 };
      },
    }));
    // One "token" per word: the sizing settles on the requested count.
    const countTokens = async (text: string) => {
      events.push("size");
      return text.split(" ").length;
    };
    const result = await runTtfbBenchmark(targets, {
      promptTokens: [16, 40],
      runs: 4,
      warmupRuns: 2,
      maxTokens: 1,
      countTokens,
    });
    // Per length: a block of sizing calls, then the 3 rows × 6 runs, with no sizing between them.
    const runsPerLength = 3 * (4 + 2);
    expect(events[0]).toBe("size");
    const blocks = events
      .join(",")
      .split(/(?:,?size)+,?/)
      .filter((block) => block.length > 0);
    expect(blocks).toHaveLength(2);
    for (const block of blocks) expect(block.split(",")).toHaveLength(runsPerLength);
    expect(new Set(prompts).size).toBe(prompts.length);
    expect(prompts.slice(0, runsPerLength).every((prompt) => prompt.split(" ").length === 16)).toBe(true);
    expect(prompts.slice(runsPerLength).every((prompt) => prompt.split(" ").length === 40)).toBe(true);
    expect(result.settings.promptTokensMeasured).toBe(true);
  });
});
