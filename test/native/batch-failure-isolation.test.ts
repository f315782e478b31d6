// Defect 8 of the native hardening: a non-zero llama_decode status failed every generation of the
// batch. Here two generations share a unified KV pool that cannot hold both to their end: when the pool
// is full, the batch fails, the engine decodes each member alone, and only the one that cannot get a
// cell fails; its cells go back to the pool and the other one runs to its maxTokens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NativeDecodeError } from "../../src/backends/llamacpp/errors/native-decode-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadTinyModel } from "./tiny-model.js";

describe("one generation's decode failure in a shared batch", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({
      contextSize: 128,
      sequences: 2,
      unifiedKvCache: true,
      batchSize: 512,
      threads: 1,
    });
  });
  afterAll(() => model.dispose());

  it("fails only the generation that found no cell; its batch-mate finishes", async () => {
    const pool = context.contextSize;
    const tokens = (count: number, offset: number) =>
      Array.from({ length: count }, (_, index) => 100 + ((index * 7 + offset) % 20_000));
    // Together they need pool + 50 cells; each alone fits.
    const long = context.generate(tokens(pool - 40, 0), { temperature: 0, maxTokens: 30, ignoreEos: true });
    const short = context.generate(tokens(30, 3), { temperature: 0, maxTokens: 30, ignoreEos: true });
    const outcomes = await Promise.allSettled([long.collect(), short.collect()]);
    const failures = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
    const results = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    expect(failures).toHaveLength(1);
    expect(NativeDecodeError.isInstance(failures[0])).toBe(true);
    expect((failures[0] as NativeDecodeError).code).toBe("ERR_DECODE");
    expect((failures[0] as NativeDecodeError).message).toMatch(/no free KV cell/);
    expect(results).toHaveLength(1);
    expect(results[0]?.finishReason).toBe("length");
    expect(results[0]?.generatedTokens).toBe(30);
  });
});
