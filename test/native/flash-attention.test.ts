import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadRawTinyModel, loadTinyModel } from "./tiny-model.js";

// flashAttention (issue 14): llama.cpp's "auto" turns CPU flash attention on, which made decoding at
// depth ~1.5× slower and a second chat turn's first token ~10× slower on the tiny model here; the
// default on the CPU is "off" (docs/native.md), "auto" with GPU layers.
describe("the flashAttention context option", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadTinyModel();
  });
  afterAll(() => model.dispose());

  async function greedyTokens(flashAttention?: "auto" | "on" | "off"): Promise<number[]> {
    const context = await model.createContext({
      contextSize: 256,
      threads: 1,
      ...(flashAttention !== undefined && { flashAttention }),
    });
    try {
      const tokens: number[] = [];
      const prompt = model.tokenize("The quick brown fox jumps over the lazy dog");
      for await (const event of context.generate(prompt, { temperature: 0, maxTokens: 4, ignoreEos: true }))
        tokens.push(event.token);
      return tokens;
    } finally {
      context.dispose();
    }
  }

  it("defaults to off on the CPU and accepts auto, on and off", async () => {
    const context = await model.createContext({ contextSize: 64, threads: 1 });
    expect(context.flashAttention).toBe("off");
    context.dispose();
    const off = await greedyTokens("off");
    for (const setting of ["auto", "on"] as const) {
      const tokens = await greedyTokens(setting);
      expect(tokens.length).toBe(4);
      // Flash attention sums in another order (F16 on the CPU): the first arg-max agrees.
      expect(tokens[0]).toBe(off[0]);
    }
  });

  it("refuses another value, naming the option", async () => {
    await expect(model.createContext({ flashAttention: "yes" as unknown as "on" })).rejects.toThrow(
      InvalidOptionError,
    );
    await expect(model.createContext({ flashAttention: true as unknown as "on" })).rejects.toThrow(
      /Expected one of "auto", "on", "off" for flashAttention/,
    );
  });

  /** The raw addon's context options with `flashAttention` set to a value its TypeScript type refuses. */
  const rawContextOptions = (flashAttention: unknown) => ({
    contextSize: 64,
    batchSize: 64,
    sequences: 1,
    threads: 1,
    batchThreads: 1,
    unifiedKvCache: false,
    flashAttention: flashAttention as "on",
  });

  it("is refused natively too, for a caller of the raw addon", async () => {
    const raw = await loadRawTinyModel();
    try {
      // The addon checks its options before it queues any work: a synchronous throw.
      expect(() => raw.createContext(rawContextOptions("sometimes"))).toThrow(
        /flashAttention must be "auto", "on" or "off"/,
      );
    } finally {
      raw.dispose();
    }
  });

  it("is refused natively when it is not a string or has another case, never read as auto", async () => {
    const raw = await loadRawTinyModel();
    try {
      for (const value of [1, null, true, "ON"]) {
        expect(() => raw.createContext(rawContextOptions(value))).toThrow(
          /flashAttention must be "auto", "on" or "off"/,
        );
      }
    } finally {
      raw.dispose();
    }
  });
});
