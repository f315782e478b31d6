// The decode engine counts what it decoded itself, so benchmarks and tests need not trust the
// caller's bookkeeping: a reused prefix is not decoded again, each sampled token is decoded once, and
// live sequences never exceed the context's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadTinyModel } from "./tiny-model.js";

describe("the decode engine's counters", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 256, batchSize: 64, sequences: 2, threads: 1 });
  });
  afterAll(() => model.dispose());

  it("counts prompt and generated tokens decoded, and a reused prefix not at all", async () => {
    const prompt = model.tokenize("Once upon a time, in a land far away");
    const start = context.counters;
    const first = await context.generate(prompt, { temperature: 0, maxTokens: 6, ignoreEos: true }).collect();
    const afterFirst = context.counters;
    expect(afterFirst.promptTokensDecoded - start.promptTokensDecoded).toBe(
      prompt.length - first.reusedPromptTokens,
    );
    // Six tokens sampled; the last one is never decoded (nothing needs its logits).
    expect(afterFirst.generatedTokensDecoded - start.generatedTokensDecoded).toBe(5);
    const second = await context
      .generate(prompt, { temperature: 0, maxTokens: 6, ignoreEos: true })
      .collect();
    expect(second.reusedPromptTokens).toBe(prompt.length - 1);
    expect(context.counters.promptTokensDecoded - afterFirst.promptTokensDecoded).toBe(1);
    expect(context.counters.liveSequences).toBe(0);
  });

  it("never holds more live sequences than the context has", async () => {
    const prompt = model.tokenize("Hello");
    const streams = Array.from({ length: 5 }, (_, index) =>
      context.generate(prompt, { seed: index, temperature: 1, maxTokens: 8, ignoreEos: true }).collect(),
    );
    const seen = context.counters;
    expect(seen.liveSequences + seen.waiting).toBeGreaterThan(0);
    await Promise.all(streams);
    expect(context.counters.peakLiveSequences).toBe(2);
    context.resetPeakCounter();
    expect(context.counters.peakLiveSequences).toBe(0);
    expect(context.counters.liveSequences).toBe(0);
    expect(context.counters.waiting).toBe(0);
  });
});
