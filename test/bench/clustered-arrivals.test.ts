// Tokens/s counts arrivals a consumer could tell apart. When the JS thread is late, tokens the decode
// thread buffered come through for-await microseconds apart in one turn of the event loop: they are one
// arrival, not tokens decoded at tens of thousands per second (the in-process row once showed 43,330
// tokens/s at 64 tokens against a true ~2,400).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { createArrivalClock } from "../../src/bench/arrival-clock.js";
import type { BenchTarget } from "../../src/bench/bench-target.js";
import { decodeRate } from "../../src/bench/decode-rate.js";
import { BackendTarget } from "../../src/bench/targets/backend-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { CBlock } from "../../src/core/cblock.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";

const busyWait = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe("the arrival clock", () => {
  it("gives every piece of one event-loop turn the same time, and a later turn a later one", async () => {
    const arrival = createArrivalClock();
    const first = arrival();
    busyWait(2);
    await Promise.resolve();
    expect(arrival()).toBe(first);
    await new Promise((resolve) => setImmediate(resolve));
    busyWait(1);
    expect(arrival()).toBeGreaterThan(first);
  });
});

describe("the decode rate", () => {
  it('is "n/a" when every token arrived together', () => {
    expect(decodeRate([5, 5, 5, 5], 4)).toEqual({ tokensPerSecond: null, interTokenMs: null });
  });

  it("counts clustered arrivals over the span between distinct arrivals", () => {
    // Token 1 at 0 ms; tokens 2-4 buffered and delivered together at 8 ms: 3 tokens in 8 ms.
    const rate = decodeRate([0, 8, 8, 8], 4);
    expect(rate.tokensPerSecond).toBeCloseTo(375, 6);
    expect(rate.interTokenMs).toBeCloseTo(8 / 3, 6);
  });
});

describe("the in-process row with a late JS thread", () => {
  let backend: LlamaCppBackend;
  let nativeTokensPerSecond: number;

  beforeAll(async () => {
    backend = await LlamaCppBackend.create({
      model: await resolveDefaultModel(),
      threads: 1,
      contextSize: 256,
    });
    const { thunk } = await backend.generateFromContext(new CBlock("Once upon a time"), new SimpleContext(), {
      modelOptions: { temperature: 0, maxNewTokens: 32, ignoreEos: true } as never,
    });
    await thunk.avalue();
    const { usage, timings } = thunk.generation;
    nativeTokensPerSecond = ((usage!.completionTokens - 1) * 1000) / timings!.decodeMs!;
  }, 60_000);

  afterAll(async () => {
    await backend?.dispose();
  });

  it("never reports more than 3x the native decode rate", async () => {
    const inner = new BackendTarget({
      name: "tessera (in-process)",
      open: async () => backend,
      modelOptions: { ignoreEos: true } as never,
    });
    // The JS thread is busy for 20 ms right after the request went out, as on a loaded machine: the
    // tokens decoded meanwhile wait in the buffers and reach the reader back to back.
    const late: BenchTarget = {
      name: inner.name,
      transport: inner.transport,
      prepare: (signal) => inner.prepare(signal),
      close: async () => {},
      stream(request, observer) {
        setTimeout(() => busyWait(20), 1);
        return inner.stream(request, observer);
      },
    };
    const result = await runTtfbBenchmark([late], {
      promptTokens: [16],
      runs: 5,
      maxTokens: 8,
      warmupRuns: 1,
    });
    expect(result.rows[0]!.errors).toBe(0);
    for (const run of result.runs) {
      if (run.tokensPerSecond === null || run.tokensPerSecond === undefined) continue;
      expect(run.tokensPerSecond).toBeLessThanOrEqual(3 * nativeTokensPerSecond);
    }
  }, 120_000);
});
