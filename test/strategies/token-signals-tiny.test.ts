// Token-signal requirements on the real llama.cpp backend (tiny model, random weights): properties that hold
// whatever the weights. One thread.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { LlamaCppModelOptions } from "../../src/backends/llamacpp/llama-cpp-model-options.js";
import { CBlock } from "../../src/core/index.js";
import {
  maxEntropyRequirement,
  minTokenLogprobRequirement,
  SimpleContext,
  stepEntropy,
  validateWhileStreaming,
} from "../../src/stdlib/index.js";

let backend: LlamaCppBackend;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 2, contextSize: 512 });
});

afterAll(async () => {
  await backend?.dispose();
});

/** Resolves once the native side has ended every generation (their final stats are then filled in). */
async function nativeIdle(): Promise<void> {
  while (backend.context.runningGenerations > 0) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("token signals on the tiny model", () => {
  it("a logprob floor above 0 cancels at the first token, and native decoding stops instead of pausing", async () => {
    const requirement = minTokenLogprobRequirement(0.5);
    const { thunk } = await backend.generateFromContext(
      new CBlock("Count to one hundred."),
      new SimpleContext(),
      {
        modelOptions: { ...requirement.streamModelOptions, maxNewTokens: 400, seed: 3, temperature: 1 },
      },
    );
    const failure = await validateWhileStreaming(thunk, [requirement], new SimpleContext());
    expect(failure?.result.reason).toMatch(/^token 0: logprob /);
    expect(thunk.cancelled).toBe(true);
    await nativeIdle();
    const output = thunk.generateLog?.modelOutput as { generatedTokens: number; finishReason: string };
    expect(output.finishReason).toBe("abort");
    // The native queue (32 events) may hold tokens decoded before the cancel; after it, at most one step.
    const pulled = thunk.generation.usage!.completionTokens;
    expect(output.generatedTokens).toBeLessThanOrEqual(pulled + 32 + 1);
    expect(output.generatedTokens).toBeLessThan(400);
  });

  it("a floor of -Infinity never fails and the sample runs to its token limit", async () => {
    const requirement = minTokenLogprobRequirement(Number.NEGATIVE_INFINITY);
    const { thunk, context } = await backend.generateFromContext(new CBlock("Hi."), new SimpleContext(), {
      modelOptions: {
        ...requirement.streamModelOptions,
        maxNewTokens: 12,
        seed: 1,
        ignoreEos: true,
      } as LlamaCppModelOptions,
    });
    expect(await validateWhileStreaming(thunk, [requirement], new SimpleContext())).toBeNull();
    expect(thunk.cancelled).toBe(false);
    expect(thunk.generation.logits?.steps).toHaveLength(12);
    expect((await requirement.validate(backend, context)).result).toBe(true);
  });

  it("top-k entropy never exceeds the exact entropy of the same step", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Hi."), new SimpleContext(), {
      modelOptions: {
        logits: "full",
        maxNewTokens: 6,
        seed: 2,
        temperature: 1,
        ignoreEos: true,
      } as LlamaCppModelOptions,
    });
    await thunk.avalue();
    const steps = thunk.generation.logits!.steps;
    expect(steps.length).toBe(6);
    for (const step of steps) {
      const ranked = [...step.full!.keys()].sort((a, b) => step.full![b]! - step.full![a]!).slice(0, 20);
      const top = ranked.map((token) => ({
        token,
        text: "",
        logit: step.full![token]!,
        logprob: step.full![token]! - step.logSumExp!,
      }));
      const { full: _full, ...withoutFull } = step;
      const approximate = stepEntropy({ ...withoutFull, top });
      expect(approximate!).toBeLessThanOrEqual(stepEntropy(step)! + 1e-6);
    }
    // And the requirement reads the same numbers: a bound of 0 fails the first token of a sampled output.
    expect(maxEntropyRequirement(0).streamModelOptions).toEqual({ logits: 20 });
  });
});
