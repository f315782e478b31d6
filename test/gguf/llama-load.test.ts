import { afterAll, describe, expect, it } from "vitest";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { evaluateOneStep, sharedLlama } from "./llama-evaluation.js";

describe("the default tiny model", () => {
  afterAll(async () => {
    await (await sharedLlama()).dispose();
  });

  it("loads in llama.cpp and evaluates to finite logits", async () => {
    const path = await resolveDefaultModel();
    expect(path).toMatch(/models\/tiny-f32\.gguf$/);
    const result = await evaluateOneStep(path);
    expect(result.promptTokens).toBeGreaterThan(1);
    expect(result.probabilities.length).toBe(32000);
    expect(result.probabilities.every((probability) => Number.isFinite(probability))).toBe(true);
    const sum = result.probabilities.reduce((total, probability) => total + probability, 0);
    expect(sum).toBeCloseTo(1, 3);
    // Random weights of N(0, 0.02) give a nearly flat distribution, not a collapsed one.
    expect(Math.max(...result.probabilities)).toBeLessThan(0.01);
  });
});
