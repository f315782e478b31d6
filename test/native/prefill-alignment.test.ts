// llama.cpp attends over the KV cells padded up to a multiple of 256. A prompt that continues a reused
// prefix used to end its first 512-token micro-batch just past such a multiple (cell 515 after 3 reused
// cells) and attend over 768 cells instead of 512: a 640-token prefill of the tiny model took 24.5 ms
// instead of 19. The engine now ends that first chunk on the multiple; the answer must not change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadTinyModel } from "./tiny-model.js";

/** `count` tokens: BOS, two fixed words' tokens, then a filler that differs per `salt`. */
function promptOf(model: LlamaModel, count: number, salt: number): Int32Array {
  const head = model.tokenize("Request list");
  const filler = model.tokenize(
    Array.from({ length: count }, (_, index) => `w${(index * 7919 + salt * 104729) % 997}`).join(" "),
    { addSpecial: false },
  );
  const prompt = new Int32Array(count);
  prompt.set(head.subarray(0, Math.min(head.length, count)));
  prompt.set(filler.subarray(0, count - head.length), head.length);
  return prompt;
}

describe("prefill chunks after a reused prefix", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  beforeAll(async () => {
    model = await loadTinyModel();
    // Steps of 512 asked for: the tiny model's default at this size is 256 (cpu-prefill-chunk-size.ts).
    context = await model.createContext({
      contextSize: 1280,
      batchSize: 512,
      prefillChunkSize: 512,
      sequences: 1,
      threads: 1,
    });
  });
  afterAll(() => model.dispose());

  it("ends the first chunk on a multiple of 256 cells, and the answer is the one a fresh prefill gives", async () => {
    const head = model.tokenize("Request list").length;
    await context.generate(promptOf(model, 700, 1), { temperature: 0, maxTokens: 1 }).collect();
    const second = promptOf(model, 1024, 2);
    const reused = await context
      .generate(second, { temperature: 0, maxTokens: 4, ignoreEos: true })
      .collect();
    // BOS, "Request list", maybe the filler's first piece: a few cells, not a multiple of 256.
    const r = reused.reusedPromptTokens;
    expect(r).toBeGreaterThanOrEqual(head);
    expect(r).toBeLessThan(16);
    // Before: [512, 512 - r], the first micro-batch ending at cell 512 + r.
    expect(reused.prefillChunks).toEqual([512 - r, 1024 - 512]);

    const fresh = await context
      .generate(second, { temperature: 0, maxTokens: 4, ignoreEos: true, reusePrefix: false })
      .collect();
    expect(fresh.reusedPromptTokens).toBe(0);
    expect(fresh.prefillChunks).toEqual([512, 512]);
    expect(reused.text).toBe(fresh.text);
    expect(reused.text.length).toBeGreaterThan(0);
  });

  it("leaves a prompt that fits in the first micro-batch whole, and an aligned start alone", async () => {
    await context.generate(promptOf(model, 600, 3), { temperature: 0, maxTokens: 1 }).collect();
    const short = await context.generate(promptOf(model, 300, 4), { temperature: 0, maxTokens: 1 }).collect();
    expect(short.prefillChunks).toEqual([300 - short.reusedPromptTokens]);
    const cold = await context
      .generate(promptOf(model, 900, 5), { temperature: 0, maxTokens: 1, reusePrefix: false })
      .collect();
    expect(cold.prefillChunks).toEqual([512, 388]);
  });

  it("keeps steps that are not a multiple of 256 whole: cutting them only added steps", async () => {
    await using odd = await model.createContext({
      contextSize: 1280,
      sequences: 1,
      threads: 1,
      prefillChunkSize: 255,
    });
    const fresh = await odd
      .generate(promptOf(model, 1024, 8), { temperature: 0, maxTokens: 1, reusePrefix: false })
      .collect();
    // Measured from the step (255), the cut left slivers: [255, 255, 2, 255, 255, 2].
    expect(fresh.prefillChunks).toEqual([255, 255, 255, 255, 4]);
  });

  it("takes whole steps when decoding sequences leave less than 256 of the budget", async () => {
    // A batch of 258 and three sequences decoding leave 255 for the prompt each step. Measured from a
    // step of 256, the cut gave [255, 1, 255, 1, ...]: every other step a 1-token sliver.
    const shared = await model.createContext({ contextSize: 2048, batchSize: 258, sequences: 4, threads: 1 });
    let decoding: Array<Promise<{ generatedTokens: number }>> = [];
    try {
      expect(shared.prefillChunkSize).toBe(256);
      decoding = [0, 1, 2].map((index) =>
        shared
          .generate(promptOf(model, 20, 10 + index), { maxTokens: 1500, temperature: 0, ignoreEos: true })
          .collect(),
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
      const long = await shared
        .generate(promptOf(model, 1500, 9), {
          temperature: 0,
          maxTokens: 2,
          ignoreEos: true,
          reusePrefix: false,
        })
        .collect();
      const steps = long.prefillChunks;
      expect(steps.reduce((sum, step) => sum + step, 0)).toBe(1500);
      // Every step but the last takes (nearly) the whole budget: 255 while the three decode, 256 if one of
      // them sat out a step (then a cut to the next multiple of 256 would have left 1-3 tokens).
      for (const step of steps.slice(0, -1)) expect(step).toBeGreaterThanOrEqual(255);
      expect(steps.length).toBeLessThanOrEqual(6);
      for (const generation of decoding) expect((await generation).generatedTokens).toBe(1500);
    } finally {
      shared.dispose();
      await Promise.allSettled(decoding);
    }
  });

  it("ends the first step of 256 on a multiple of 256 too, not only a micro-batch's", async () => {
    // The default step on the tiny model: 256. Measuring the reach from the micro-batch (512) let every
    // step of a misaligned prompt cross a multiple of 256: [256, 256, 256, 256 - r].
    await using stepped = await model.createContext({ contextSize: 1280, sequences: 1, threads: 1 });
    expect(stepped.prefillChunkSize).toBe(256);
    await stepped.generate(promptOf(model, 700, 6), { temperature: 0, maxTokens: 1 }).collect();
    const reused = await stepped
      .generate(promptOf(model, 1024, 7), { temperature: 0, maxTokens: 4, ignoreEos: true })
      .collect();
    const r = reused.reusedPromptTokens;
    expect(r).toBeGreaterThan(0);
    expect(r).toBeLessThan(16);
    expect(reused.prefillChunks).toEqual([256 - r, 256, 256, 256]);
    const fresh = await stepped
      .generate(promptOf(model, 1024, 7), {
        temperature: 0,
        maxTokens: 4,
        ignoreEos: true,
        reusePrefix: false,
      })
      .collect();
    expect(fresh.prefillChunks).toEqual([256, 256, 256, 256]);
    expect(reused.text).toBe(fresh.text);
  });
});
