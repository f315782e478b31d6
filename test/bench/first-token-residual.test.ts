// The "stages cover the first token within 5%" check can fail: the benchmark times the first token on its
// own clock and adds nothing to any stage, so a target whose timings leave a stage out (or count one
// twice) shows it as unaccounted time. The target here is a stand-in for control flow only: it waits on
// real timers and reports the stages it measured between its own marks.
import { describe, expect, it } from "vitest";
import type { BenchTarget, StreamObserver, StreamRequest } from "../../src/bench/bench-target.js";
import {
  type FirstTokenStageTimes,
  inProcessStages,
  stagesCoverFirstToken,
} from "../../src/bench/first-token-stages.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { ttfbStagesChart, ttfbStagesMarkdown } from "../../src/bench/ttfb-report.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Tokenizes for 5 ms, prefills for 20 ms, then hands over its text; `report` picks what it tells. */
function timedTarget(
  name: string,
  report: (measured: { tokenize: number; prefill: number }) => FirstTokenStageTimes,
): BenchTarget {
  return {
    name,
    transport: "in-process",
    async prepare() {},
    async close() {},
    async stream(_request: StreamRequest, observer: StreamObserver) {
      const start = performance.now();
      await sleep(5);
      const tokenized = performance.now();
      await sleep(20);
      const sampled = performance.now();
      observer.firstByte();
      observer.content("hello");
      const measured = { tokenize: tokenized - start, prefill: sampled - tokenized };
      return { completionTokens: 1, firstToken: { stages: report(measured) } };
    },
  };
}

const stagesOf = (tokenize: number, prefill: number) =>
  inProcessStages({ setup: 0, template: 0, tokenize, queueWait: 0, prefill, firstDelivery: 0 });

describe("the first token's unaccounted time", () => {
  it("is small when the stages cover the first token, and shows a missing or doubled stage", async () => {
    const result = await runTtfbBenchmark(
      [
        timedTarget("complete", ({ tokenize, prefill }) => stagesOf(tokenize, prefill)),
        timedTarget("prefill missing", ({ tokenize }) => stagesOf(tokenize, 0)),
        timedTarget("prefill twice", ({ tokenize, prefill }) => stagesOf(tokenize, 2 * prefill)),
      ],
      { promptTokens: [16], runs: 3, maxTokens: 1, warmupRuns: 0 },
    );
    const row = (name: string) => result.rows.find((candidate) => candidate.target === name)!;
    const complete = row("complete");
    expect(stagesCoverFirstToken(complete.firstContentMs.median!, complete.unaccountedMs!)).toBe(true);
    const missing = row("prefill missing");
    expect(missing.unaccountedMs!).toBeGreaterThanOrEqual(19);
    expect(stagesCoverFirstToken(missing.firstContentMs.median!, missing.unaccountedMs!)).toBe(false);
    const doubled = row("prefill twice");
    expect(doubled.unaccountedMs!).toBeLessThanOrEqual(-19);
    expect(stagesCoverFirstToken(doubled.firstContentMs.median!, doubled.unaccountedMs!)).toBe(false);
    // No stage absorbs the rest of the way: each run's stages are exactly what the target reported.
    for (const run of result.runs.filter((candidate) => candidate.target === "prefill missing")) {
      expect(run.stages!.prefill).toBe(0);
      expect(run.stages!.firstDelivery).toBe(0);
    }
    expect(ttfbStagesMarkdown(result)).toContain("| unaccounted ms |");
    expect(ttfbStagesChart(result)).toContain("unaccounted");
  });
});
