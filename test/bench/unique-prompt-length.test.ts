// `bench ttfb`'s shortest prompts are 16 tokens. The prompts' unique head used to be 20 tokens by itself
// on the default model's tokenizer ("Request <salt>-<time>. Continue the list:"), so every "16-token"
// prompt was 19-22 tokens while the report said 16. Sized with the real tokenizer, they are 16 now.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { buildUniquePrompt, randomSalt } from "../../src/bench/unique-prompts.js";
import { resolveDefaultModel, resolveModel } from "../../src/gguf/default-model.js";

let model: LlamaModel;

beforeAll(async () => {
  model = await loadLlamaModel(await resolveDefaultModel());
}, 60_000);

afterAll(async () => {
  await model?.dispose();
});

describe("unique prompts on the default model's tokenizer", () => {
  it("come close to a long length on a character vocabulary, six tokens a word", async () => {
    // A fixed step of about one word per token swung between 1 and 400 words there and settled on 22
    // tokens for "256".
    const characters = await loadLlamaModel(await resolveModel("tiny-text"));
    try {
      const countTokens = async (text: string) => characters.tokenize(text, { addSpecial: false }).length;
      let salt = randomSalt();
      for (const length of [64, 256, 1024]) {
        for (let index = 0; index < 5; index++) {
          const prompt = await buildUniquePrompt(length, salt++, countTokens);
          expect(Math.abs(prompt.tokens - length), `${length}: ${prompt.tokens}`).toBeLessThanOrEqual(3);
        }
      }
    } finally {
      characters.dispose();
    }
  }, 60_000);

  it("come out at the requested length, 16 tokens included, each with its own start", async () => {
    const countTokens = async (text: string) => model.tokenize(text).length;
    for (const length of [16, 256]) {
      let salt = randomSalt();
      const prompts = [];
      for (let index = 0; index < 20; index++)
        prompts.push(await buildUniquePrompt(length, salt++, countTokens));
      const exact = prompts.filter((prompt) => prompt.tokens === length).length;
      // Filler words are a token or two each, so a few may land one off; none far.
      expect(exact, `${length}: ${prompts.map((prompt) => prompt.tokens).join(" ")}`).toBeGreaterThanOrEqual(
        16,
      );
      for (const prompt of prompts) expect(Math.abs(prompt.tokens - length)).toBeLessThanOrEqual(1);
      expect(new Set(prompts.map((prompt) => prompt.text.split(" ")[0])).size).toBe(prompts.length);
    }
  });
});
