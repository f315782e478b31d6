import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenStream } from "../../src/backends/llamacpp/token-stream.js";
import { loadTinyModel } from "./tiny-model.js";

async function tokensOf(stream: TokenStream): Promise<number[]> {
  const tokens: number[] = [];
  for await (const event of stream) tokens.push(event.token);
  return tokens;
}

describe("several sequences of one context", () => {
  let model: LlamaModel;
  let parallel: LlamaContext;
  let single: LlamaContext;
  let prompt: Int32Array;
  const seeds = [11, 22, 33, 44];
  const options: GenerateTokensOptions = { temperature: 0.8, topK: 50, maxTokens: 16, ignoreEos: true };
  beforeAll(async () => {
    model = await loadTinyModel();
    parallel = await model.createContext({ contextSize: 256, sequences: seeds.length, threads: 1 });
    single = await model.createContext({ contextSize: 256, sequences: 1, threads: 1 });
    prompt = model.tokenize("In the beginning there was");
  });
  afterAll(() => model.dispose());

  it("gives the same tokens in one batch as in separate runs with the same seeds", async () => {
    const alone: number[][] = [];
    for (const seed of seeds) alone.push(await tokensOf(single.generate(prompt, { ...options, seed })));
    const together = await Promise.all(
      seeds.map((seed) => tokensOf(parallel.generate(prompt, { ...options, seed }))),
    );
    expect(together).toEqual(alone);
    expect(new Set(together.map((tokens) => tokens.join(","))).size).toBeGreaterThan(1);
  });

  it("queues generations beyond the sequence count and runs them all", async () => {
    const many = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((seed) => parallel.generate(prompt, { ...options, seed }));
    const results = await Promise.all(many.map((stream) => stream.collect()));
    expect(results.every((result) => result.generatedTokens === 16)).toBe(true);
    expect(new Set(results.map((result) => result.sequence)).size).toBe(seeds.length);
  });

  it("shares a long common prefix between sequences instead of prefilling it again", async () => {
    const longPrompt = model.tokenize(
      "A long shared system prompt that every request of a best-of-n run starts with, repeated: ".repeat(3),
    );
    expect(longPrompt.length).toBeGreaterThan(64);
    // Greedy: a batched prefill and a one-token decode of the same position differ in the last float bits
    // (different matmul kernels), which a random draw can amplify; the arg-max is robust to that.
    const greedy = { temperature: 0, maxTokens: 16, ignoreEos: true };
    const streams = seeds.map(() => parallel.generate(longPrompt, greedy));
    const tokens = await Promise.all(streams.map((stream) => tokensOf(stream)));
    const results = await Promise.all(streams.map((stream) => stream.result));
    const reused = results.map((result) => result.reusedPromptTokens).sort((a, b) => a - b);
    // One sequence computes the prefix (reusing at most the BOS of an earlier prompt); the others copy its cells.
    expect(reused[0]).toBeLessThan(8);
    expect(reused.slice(1).every((count) => count === longPrompt.length - 1)).toBe(true);
    // Copied cells decode exactly like computed ones.
    const alone = await tokensOf(single.generate(longPrompt, { ...greedy, reusePrefix: false }));
    for (const sequenceTokens of tokens) expect(sequenceTokens).toEqual(alone);
  });
});
