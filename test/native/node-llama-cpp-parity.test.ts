import { getLlama, type Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { loadTinyModel, logSoftmaxAt } from "./tiny-model.js";

// node-llama-cpp's addon and ours share the same prebuilt libraries in one process.
describe("raw logits compared with node-llama-cpp", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadTinyModel();
  });
  afterAll(() => model.dispose());

  it("matches node-llama-cpp's next-token distribution for the same prompt", async () => {
    const prompt = model.tokenize("The capital of France is");
    // The same attention on both sides: node-llama-cpp defaults to "auto" (flash attention on, on the
    // CPU), tessera to "off" there, and the two sum in different orders.
    const context = await model.createContext({ contextSize: 256, threads: 1, flashAttention: "off" });
    const [ours] = await (async () => {
      const events = [];
      for await (const event of context.generate(prompt, {
        temperature: 0,
        maxTokens: 1,
        rawLogits: "full",
      })) {
        events.push(event);
      }
      return events;
    })();
    const raw = ours!.rawLogits!.full!;

    const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" as never });
    const theirModel = await llama.loadModel({ modelPath: await resolveDefaultModel() });
    const theirContext = await theirModel.createContext({
      contextSize: 256,
      threads: 1,
      flashAttention: false,
    });
    try {
      const sequence = theirContext.getSequence();
      const evaluation = sequence.evaluateWithMetadata(
        [...prompt] as Token[],
        { probabilities: true },
        { temperature: 0 },
      );
      const first = (await evaluation.next()).value!;
      await evaluation.return();
      const probabilities = first.probabilities as Map<number, number>;
      expect(first.token).toBe(ours!.token);
      const best = [...probabilities.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20);
      for (const [token, probability] of best) {
        expect(logSoftmaxAt(raw, token)).toBeCloseTo(Math.log(probability), 4);
      }
    } finally {
      await theirContext.dispose();
      await theirModel.dispose();
      await llama.dispose();
      context.dispose();
    }
  });
});
