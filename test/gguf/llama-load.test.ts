import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generatePresetModel, resolveDefaultModel, resolveModel } from "../../src/gguf/default-model.js";
import { writableTensorTypes } from "../../src/gguf/tensor-encoding.js";
import { scratchFolder } from "./crafted-files.js";
import { evaluateOneStep, sharedLlama } from "./llama-evaluation.js";

const scratch = scratchFolder();

afterAll(async () => {
  await (await sharedLlama()).dispose();
  scratch.remove();
});

function expectFiniteDistribution(probabilities: readonly number[], vocabularySize: number): void {
  expect(probabilities.length).toBe(vocabularySize);
  expect(probabilities.every((probability) => Number.isFinite(probability) && probability >= 0)).toBe(true);
  const sum = probabilities.reduce((total, probability) => total + probability, 0);
  expect(sum).toBeCloseTo(1, 3);
  // Random weights of N(0, 0.02) give a nearly flat distribution, not a collapsed or degenerate one.
  const largest = probabilities.reduce((maximum, probability) => Math.max(maximum, probability), 0);
  expect(largest).toBeLessThan(0.01);
}

describe("synthetic models in llama.cpp", () => {
  it("the default model (tiny, F32) loads and evaluates to finite logits", async () => {
    const path = await resolveDefaultModel();
    expect(path).toMatch(/models\/tiny-f32\.gguf$/);
    const result = await evaluateOneStep(path);
    expect(result.tokens).toEqual([15043, 3186]); // ▁Hello ▁world: the real SentencePiece vocabulary
    expect(result.beginningOfSequence).toBe(1);
    expectFiniteDistribution(result.probabilities, 32000);
  });

  for (const type of writableTensorTypes) {
    it(`tiny in ${type} loads and evaluates to finite logits`, async () => {
      const path = join(scratch.path, `tiny-${type}.gguf`);
      await generatePresetModel("tiny", path, { type });
      expectFiniteDistribution((await evaluateOneStep(path)).probabilities, 32000);
    });
  }

  it("tiny-bpe (Llama 3 BPE vocabulary) in Q4_0 loads, tokenizes and evaluates to finite logits", async () => {
    const result = await evaluateOneStep(await resolveModel("tiny-bpe:q4_0"));
    expect(result.tokens).toEqual([9906, 1917]); // Hello Ġworld: the real Llama 3 BPE vocabulary
    expect(result.beginningOfSequence).toBe(128000);
    expectFiniteDistribution(result.probabilities, 128256);
  });
});
