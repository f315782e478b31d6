// `bench ttfb` sizes its prompts by tokenizing them with one row's own model. Done right before a run,
// that left the row's tokenizer tables in the CPU's caches and every other row's cold: in the server-rows
// runs of 2026-12-03, tessera in-process (the sizing model's row) tokenized 16 tokens in 0.054 ms and
// `tessera serve`, the same code in another process, in 0.139 ms. Every measured prompt is therefore
// sized before anything runs, yielding to the event loop between prompts (sizing is synchronous native
// work: without the yields a long sizing phase froze signals, timers and the progress bar). The targets
// are plain recorders: this is the schedule's control flow, not a measurement.
import { describe, expect, it } from "vitest";
import type { BenchTarget } from "../../src/bench/bench-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { ttfbMarkdown } from "../../src/bench/ttfb-report.js";

function recorders(events: string[], prompts: string[]): BenchTarget[] {
  return ["a", "b", "c"].map((name) => ({
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
}

/** Blocks this thread for `ms`, as a native tokenize call does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe("bench ttfb's prompt sizing", () => {
  it("sizes every measured prompt before the first run, one new prompt per run, each length listed twice too", async () => {
    const events: string[] = [];
    const prompts: string[] = [];
    // One "token" per word: the sizing settles on the requested count.
    const countTokens = async (text: string) => {
      events.push("size");
      return text.split(" ").length;
    };
    const result = await runTtfbBenchmark(recorders(events, prompts), {
      promptTokens: [16, 40, 16],
      runs: 4,
      warmupRuns: 2,
      maxTokens: 1,
      countTokens,
    });
    const runsPerLength = 3 * (4 + 2);
    const firstRun = events.findIndex((event) => event.startsWith("run"));
    expect(firstRun).toBeGreaterThan(0);
    expect(events.slice(firstRun).includes("size")).toBe(false);
    expect(events.slice(firstRun)).toHaveLength(3 * runsPerLength);
    expect(new Set(prompts).size).toBe(prompts.length);
    const lengths = prompts.map((prompt) => prompt.split(" ").length);
    expect(lengths.slice(0, runsPerLength).every((length) => length === 16)).toBe(true);
    expect(lengths.slice(runsPerLength, 2 * runsPerLength).every((length) => length === 40)).toBe(true);
    expect(lengths.slice(2 * runsPerLength).every((length) => length === 16)).toBe(true);
    expect(result.settings.promptTokensMeasured).toBe(true);
    // What the sizing counted is recorded per length and said in the report's first line.
    expect(result.settings.promptTokenRanges).toEqual([
      { promptTokens: 16, min: 16, max: 16 },
      { promptTokens: 40, min: 40, max: 40 },
      { promptTokens: 16, min: 16, max: 16 },
    ]);
    expect(ttfbMarkdown(result).split("\n")[0]).toContain(
      "unique prompts of 16 / 40 / 16 tokens as the local model's tokenizer sized them (the text's own, without BOS or a chat template)",
    );
  });

  it("records the range a tokenizer could not hit exactly, and nothing for estimated lengths", async () => {
    // Every word is two tokens: an odd count can only be missed by one.
    const countTokens = async (text: string) => 2 * text.split(" ").length;
    const result = await runTtfbBenchmark(recorders([], []), {
      promptTokens: [17],
      runs: 3,
      warmupRuns: 0,
      maxTokens: 1,
      countTokens,
    });
    const [range] = result.settings.promptTokenRanges!;
    expect(range!.promptTokens).toBe(17);
    expect([16, 18]).toContain(range!.min);
    expect([16, 18]).toContain(range!.max);
    expect(ttfbMarkdown(result)).toMatch(
      /unique prompts of 1[68](-18)? tokens as the local model's tokenizer sized them/,
    );
    const estimated = await runTtfbBenchmark(recorders([], []), {
      promptTokens: [17],
      runs: 1,
      warmupRuns: 0,
      maxTokens: 1,
    });
    expect(estimated.settings.promptTokenRanges).toBeUndefined();
    expect(ttfbMarkdown(estimated)).toContain("unique prompts (lengths estimated)");
  });

  it("lets timers run and an abort stop it while it sizes, before any run", async () => {
    const events: string[] = [];
    const controller = new AbortController();
    let sizedWhenTimerRan: number | null = null;
    let sized = 0;
    setTimeout(() => {
      sizedWhenTimerRan = sized;
      controller.abort(new Error("stopped while sizing"));
    }, 20);
    const countTokens = async (text: string) => {
      sized++;
      busy(2);
      return text.split(" ").length;
    };
    await expect(
      runTtfbBenchmark(recorders(events, []), {
        promptTokens: [16],
        runs: 100,
        warmupRuns: 0,
        maxTokens: 1,
        countTokens,
        signal: controller.signal,
      }),
    ).rejects.toThrow("stopped while sizing");
    // The timer fired a few prompts in (each takes ≥ 2 ms), not after all 300 were sized.
    expect(sizedWhenTimerRan).not.toBeNull();
    expect(sizedWhenTimerRan!).toBeLessThan(100);
    expect(events).toEqual([]);
  });
});
