// The streaming part of `tessera bench strategies` on the tiny model: properties that hold whatever the
// weights. Paired runs draw the same samples, so sequential rejection sampling succeeds exactly as often with
// streaming checks as without, and never generates more tokens with them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import {
  defaultEarlyFailures,
  runStreamingComparison,
  type StreamingRow,
  streamingRunCount,
} from "../../src/bench/strategies-streaming.js";
import { defaultStrategyTasks } from "../../src/bench/strategy-tasks.js";

let backend: LlamaCppBackend;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 4, contextSize: 512 });
});

afterAll(async () => {
  await backend?.dispose();
});

describe("the streaming comparison", () => {
  it("the built-in early verdicts never fail a text that passes its task", () => {
    const texts = [
      "Hello there",
      "hello",
      "  The sea",
      "naïve",
      "short words only",
      "lighthouses",
      "Ünïcode",
      "",
    ];
    for (const task of defaultStrategyTasks) {
      const failsEarly = defaultEarlyFailures[task.id];
      if (failsEarly === undefined) continue;
      for (const text of texts) {
        for (let cut = 0; cut <= text.length; cut++) {
          if (failsEarly(text.slice(0, cut))) expect(task.verify(text), `${task.id}: ${text}`).toBe(false);
        }
      }
    }
  });

  it("pairs every configuration with and without streaming checks, within budget and live caps", async () => {
    const tasks = defaultStrategyTasks.filter((task) => task.id in defaultEarlyFailures);
    let ticks = 0;
    const rows = await runStreamingComparison({
      backend,
      tasks,
      runs: 1,
      maxTokens: 16,
      n: 3,
      engine: {
        counters: () => backend.context.counters,
        resetPeak: () => backend.context.resetPeakCounter(),
      },
      tick: () => ticks++,
    });
    expect(ticks).toBe(streamingRunCount(tasks.length, 1));
    expect(rows).toHaveLength(12);
    const find = (strategy: string, scheduling: string, streaming: boolean) =>
      rows.find(
        (row) =>
          row.strategy.startsWith(strategy) && row.scheduling === scheduling && row.streaming === streaming,
      ) as StreamingRow;
    for (const row of rows) {
      expect(row.errors).toBe(0);
      // The decode engine's own counts: never more live sequences than the strategy's concurrency, and
      // at least every generated token decoded but the last of each sample.
      expect(row.peakLive).not.toBeNull();
      expect(row.peakLive!).toBeGreaterThanOrEqual(1);
      expect(row.peakLive!).toBeLessThanOrEqual(row.concurrency);
      expect(row.decodedTokens!).toBeGreaterThanOrEqual(row.tokensGenerated - row.attempts);
      expect(row.tokensDiscarded).toBeLessThanOrEqual(row.tokensGenerated);
      if (!row.streaming) expect(row.tokensSaved).toBeNull();
    }
    for (const scheduling of ["batched", "sequential"]) {
      const off = find("rejection", scheduling, false);
      const on = find("rejection", scheduling, true);
      expect(on.tokensSaved).toBe(off.tokensGenerated - on.tokensGenerated);
      expect(off.attempts).toBeLessThanOrEqual(4 * tasks.length);
    }
    const sequentialOff = find("rejection", "sequential", false);
    const sequentialOn = find("rejection", "sequential", true);
    expect(sequentialOn.successRate).toBe(sequentialOff.successRate);
    expect(sequentialOn.tokensSaved).toBeGreaterThanOrEqual(0);
    expect(sequentialOff.concurrency).toBe(1);
    expect(find("best-of", "batched", true).concurrency).toBe(3);
  });
});
