// The CPU's default prefill step (cpu-prefill-chunk-size.ts): 256 tokens for a shape whose attention scores
// outweigh its matrix products with flash attention off (the tiny model at its default context), the batch
// size otherwise; an explicit prefillChunkSize always wins. The answer must not depend on the step.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NativeModelMetadata } from "../../src/backends/llamacpp/addon-types.js";
import {
  attentionBoundRatio,
  attentionScoreRatio,
  cpuPrefillChunkSize,
} from "../../src/backends/llamacpp/cpu-prefill-chunk-size.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveModel } from "../../src/gguf/default-model.js";
import { loadTinyModel } from "./tiny-model.js";

/** The tiny model's metadata with the hyperparameters of another shape (same architecture key). */
function shaped(
  base: NativeModelMetadata,
  width: number,
  heads: number,
  kvHeads: number,
  feedForward: number,
): NativeModelMetadata {
  const arch = base.architecture;
  return {
    ...base,
    embeddingSize: width,
    values: {
      ...base.values,
      [`${arch}.embedding_length`]: String(width),
      [`${arch}.attention.head_count`]: String(heads),
      [`${arch}.attention.head_count_kv`]: String(kvHeads),
      [`${arch}.feed_forward_length`]: String(feedForward),
    },
  };
}

describe("the CPU's default prefillChunkSize", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadTinyModel();
  });
  afterAll(() => model.dispose());

  it("takes steps of 256 on the tiny model whatever its context, and the batch size where attention is cheap", async () => {
    const chosen = async (options: Parameters<LlamaModel["createContext"]>[0]) => {
      await using context = await model.createContext({ threads: 1, ...options });
      return context.prefillChunkSize;
    };
    expect(await chosen({})).toBe(256);
    // The shape decides, not the context: the score matrix grows with the cells in use.
    expect(await chosen({ contextSize: 512 })).toBe(256);
    expect(await chosen({ contextSize: 16384 })).toBe(256);
    // Flash attention writes no score matrix.
    expect(await chosen({ flashAttention: "on" })).toBe(512);
    expect(await chosen({ flashAttention: "auto" })).toBe(512);
    // An explicit value wins, and a batch of 256 or less is the step anyway.
    expect(await chosen({ prefillChunkSize: 512 })).toBe(512);
    expect(await chosen({ batchSize: 128 })).toBe(128);
  });

  it("gives the trained tiny-text model (128 wide) steps of 256 too", async () => {
    await using trained = await loadLlamaModel(await resolveModel("tiny-text"));
    expect(attentionScoreRatio(trained.metadata)).toBeCloseTo(0.0192, 4);
    await using context = await trained.createContext({ threads: 1 });
    expect(context.prefillChunkSize).toBe(256);
  });

  it("keeps whole micro-batches for real shapes: Llama 3.2 1B and 3.1 8B, a mixture of experts", () => {
    const base = model.metadata;
    const oneB = shaped(base, 2048, 32, 8, 8192);
    const eightB = shaped(base, 4096, 32, 8, 14336);
    expect(attentionScoreRatio(oneB)).toBeCloseTo(
      (1024 * 32) / (2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 8192),
      8,
    );
    expect(attentionScoreRatio(oneB)!).toBeLessThan(attentionBoundRatio / 5);
    expect(cpuPrefillChunkSize(oneB, 512, "off")).toBe(512);
    expect(cpuPrefillChunkSize(eightB, 512, "off")).toBe(512);
    // A Qwen3-30B-A3B-like shape: 8 of 128 experts of 768, dense size 6144 (unused by its layers), key
    // length 128. Counting feed_forward_length × 8 experts made it 8× too heavy.
    const arch = base.architecture;
    const moe: NativeModelMetadata = {
      ...shaped(base, 2048, 32, 4, 6144),
      values: {
        ...shaped(base, 2048, 32, 4, 6144).values,
        [`${arch}.attention.key_length`]: "128",
        [`${arch}.attention.value_length`]: "128",
        [`${arch}.expert_count`]: "128",
        [`${arch}.expert_used_count`]: "8",
        [`${arch}.expert_feed_forward_length`]: "768",
      },
    };
    const attention = 2048 * 32 * 128 + 2048 * 4 * 256 + 32 * 128 * 2048;
    expect(attentionScoreRatio(moe)).toBeCloseTo((1024 * 32) / (attention + 3 * 2048 * 768 * 8), 8);
    expect(cpuPrefillChunkSize(moe, 512, "off")).toBe(512);
    // Shared experts: Qwen2-MoE gives one's size, DeepSeek-style GGUFs a count of experts' size.
    const withShared = (extra: Record<string, string>): NativeModelMetadata => ({
      ...moe,
      values: { ...moe.values, ...extra },
    });
    expect(
      attentionScoreRatio(withShared({ [`${arch}.expert_shared_feed_forward_length`]: "5632" })),
    ).toBeCloseTo((1024 * 32) / (attention + 3 * 2048 * (768 * 8 + 5632)), 8);
    expect(attentionScoreRatio(withShared({ [`${arch}.expert_shared_count`]: "2" }))).toBeCloseTo(
      (1024 * 32) / (attention + 3 * 2048 * (768 * 8 + 768 * 2)),
      8,
    );
    // The tiny model over the bound, by the same arithmetic.
    expect(attentionScoreRatio(base)).toBeCloseTo((1024 * 4) / 61440, 8);
    expect(cpuPrefillChunkSize(base, 512, "off")).toBe(256);
  });

  it("keeps the batch size when the metadata lacks the attention shape", () => {
    const base = model.metadata;
    const unknown: NativeModelMetadata = {
      ...base,
      values: Object.fromEntries(Object.entries(base.values).filter(([key]) => !key.includes("head_count"))),
    };
    expect(attentionScoreRatio(unknown)).toBeUndefined();
    expect(cpuPrefillChunkSize(unknown, 512, "off")).toBe(512);
  });

  it("gives the same answer in steps of 256 as in steps of 512", async () => {
    await using small = await model.createContext({ threads: 1, contextSize: 1280, sequences: 1 });
    await using whole = await model.createContext({
      threads: 1,
      contextSize: 1280,
      sequences: 1,
      prefillChunkSize: 512,
    });
    const text = Array.from({ length: 900 }, (_, index) => `w${(index * 7919) % 997}`).join(" ");
    const prompt = model.tokenize(text).subarray(0, 1000);
    const options = { temperature: 0, maxTokens: 8, ignoreEos: true, reusePrefix: false } as const;
    const stepped = await small.generate(prompt, options).collect();
    const once = await whole.generate(prompt, options).collect();
    expect(stepped.prefillChunks).toEqual([256, 256, 256, 232]);
    expect(once.prefillChunks).toEqual([512, 488]);
    expect(stepped.generatedTokens).toBe(8);
    expect(stepped.text.length).toBeGreaterThan(0);
    expect(stepped.text).toBe(once.text);
  });
});
