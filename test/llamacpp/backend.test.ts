// End to end through LlamaCppBackend on the generated tiny model (real addon, one thread).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { GrammarError } from "../../src/backends/llamacpp/errors/grammar-error.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import { GenerationAbortedError } from "../../src/core/errors/generation-aborted-error.js";
import { InvalidModelOptionError } from "../../src/core/errors/invalid-model-option-error.js";
import { UnknownModelOptionError } from "../../src/core/errors/unknown-model-option-error.js";
import type { ModelOptions } from "../../src/core/model-options.js";
import type { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";

let backend: LlamaCppBackend;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 4, contextSize: 256 });
});
afterAll(() => backend.dispose());

async function generate(prompt: string, modelOptions: ModelOptions & Record<string, unknown>) {
  const { thunk } = await backend.generateFromContext(new CBlock(prompt), new ChatContext(), {
    modelOptions,
  });
  return thunk;
}

async function text(prompt: string, modelOptions: ModelOptions & Record<string, unknown>): Promise<string> {
  return (await generate(prompt, modelOptions)).avalue();
}

describe("LlamaCppBackend", () => {
  test("returns an uncomputed thunk whose streamed deltas add up to the final value", async () => {
    const thunk = await generate("Tell me a story", { maxNewTokens: 24, seed: 7, temperature: 0.9 });
    expect(thunk.isComputed()).toBe(false);
    const deltas: string[] = [];
    for await (const delta of thunk) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(thunk.value);
    expect(thunk.isComputed()).toBe(true);
  });

  test("fills the generation metadata and the log", async () => {
    const thunk = await generate("Hello", { maxNewTokens: 8, seed: 1, temperature: 0.8 });
    await thunk.avalue();
    const generation = thunk.generation;
    expect(generation.provider).toBe("llama.cpp");
    expect(generation.model).toBe("tiny");
    expect(generation.finishReasons).toEqual(["length"]);
    expect(generation.usage?.completionTokens).toBe(8);
    expect(generation.usage!.promptTokens).toBeGreaterThan(3);
    expect(generation.usage!.totalTokens).toBe(generation.usage!.promptTokens + 8);
    expect(generation.ttfbMs).toBeGreaterThan(0);
    expect(generation.timeToFirstTokenMs).toBeGreaterThan(0);
    expect(generation.timings?.tokenizeMs).toBeGreaterThanOrEqual(0);
    expect(generation.timings?.prefillMs).toBeGreaterThan(0);
    expect(generation.timings?.decodeMs).toBeGreaterThan(0);
    // The tiny model's GGUF carries a Llama 2 chat template.
    expect(thunk.generateLog?.prompt).toBe("<s>[INST] Hello [/INST]");
    expect(thunk.generateLog?.extra.chatTemplate).toBe("gguf:tiny-f32.gguf");
  });

  test("the same seed gives the same text, another seed another text", async () => {
    const options = { maxNewTokens: 16, temperature: 1, topK: 40 };
    const first = await text("Once upon a time", { ...options, seed: 42 });
    const second = await text("Once upon a time", { ...options, seed: 42 });
    const other = await text("Once upon a time", { ...options, seed: 43 });
    expect(second).toBe(first);
    expect(other).not.toBe(first);
  });

  test("the system prompt goes into the template's system turn", async () => {
    const thunk = await generate("Hi", { maxNewTokens: 1, systemPrompt: "Be terse." });
    await thunk.avalue();
    expect(thunk.generateLog?.prompt).toBe("<s><<SYS>>\nBe terse.\n<</SYS>>\n\n[INST] Hi [/INST]");
  });

  test("a stop sequence spanning tokens ends the text before it, with finish reason stop", async () => {
    const options = { maxNewTokens: 24, seed: 5, temperature: 0.7, logits: 1 as const };
    const full = await generate("Write something", options);
    const fullText = await full.avalue();
    // Two characters on each side of the boundary between the 4th and 5th token.
    const steps = full.generation.logits!.steps;
    const boundary = steps.slice(0, 4).reduce((length, step) => length + step.text.length, 0);
    const stop = fullText.slice(boundary - 2, boundary + 2);
    expect(stop.length).toBe(4);
    const stopped = await generate("Write something", { ...options, stopSequences: [stop] });
    const stoppedText = await stopped.avalue();
    expect(stoppedText).toBe(fullText.slice(0, fullText.indexOf(stop)));
    expect(stoppedText).not.toContain(stop);
    expect(stopped.generation.finishReasons).toEqual(["stop"]);
    expect(stopped.generation.usage?.completionTokens).toBe(5);
  });

  test("a GBNF grammar constrains the output", async () => {
    for (const seed of [1, 2, 3]) {
      expect(["yes", "no"]).toContain(
        await text("Answer", { grammar: 'root ::= "yes" | "no"', seed, maxNewTokens: 8 }),
      );
    }
  });

  describe("logits", () => {
    test("top-k processed and full raw traces have one step per token and the right shape", async () => {
      const thunk = await generate("Logits please", {
        maxNewTokens: 6,
        seed: 3,
        temperature: 0.8,
        logits: 5,
        rawLogits: "full",
      });
      await thunk.avalue();
      const processed = thunk.generation.logits!;
      const raw = thunk.generation.rawLogits!;
      const vocabSize = backend.model.vocabSize;
      expect(processed).toMatchObject({ kind: "processed", source: "llama.cpp", topK: 5, vocabSize });
      expect(raw).toMatchObject({ kind: "raw", source: "llama.cpp", topK: null, vocabSize });
      expect(processed.steps).toHaveLength(6);
      expect(raw.steps).toHaveLength(6);
      expect(processed.steps.map((step) => step.text).join("")).toBe(thunk.value);
      for (const [index, step] of processed.steps.entries()) {
        expect(step.top).toHaveLength(5);
        expect(step.logprob).toBeLessThanOrEqual(0);
        for (const alternative of step.top)
          expect(alternative.logprob).toBeCloseTo(alternative.logit! - step.logSumExp!, 4);
        const rawStep = raw.steps[index]!;
        expect(rawStep.token).toBe(step.token);
        expect(rawStep.full).toBeInstanceOf(Float32Array);
        expect(rawStep.full!.length).toBe(vocabSize);
        // The raw log-probability of the chosen token, from the full vector.
        expect(rawStep.logprob).toBeCloseTo(rawStep.full![step.token!]! - rawStep.logSumExp!, 4);
      }
    });

    test("greedy picks the arg-max of the processed logits", async () => {
      const thunk = await generate("Greedy", { maxNewTokens: 5, temperature: 0, logits: 3 });
      await thunk.avalue();
      for (const step of thunk.generation.logits!.steps) expect(step.token).toBe(step.top[0]!.token);
    });
  });

  describe("bad input", () => {
    test("a prompt that does not fit with maxNewTokens fails before any chunk, naming both numbers", async () => {
      const error = await backend
        .generateFromContext(new CBlock("Hello"), new ChatContext(), { modelOptions: { maxNewTokens: 300 } })
        .catch((caught: unknown) => caught);
      expect(ContextOverflowError.isInstance(error)).toBe(true);
      const overflow = error as ContextOverflowError;
      expect(overflow.contextSize).toBe(256);
      expect(overflow.maxTokens).toBe(300);
      expect(overflow.message).toContain(`${overflow.promptTokens} tokens`);
      expect(overflow.message).toContain("256");
    });

    test("a prompt longer than the context fails before any chunk", async () => {
      const error = await text("word ".repeat(400), { maxNewTokens: 4 }).catch((caught: unknown) => caught);
      expect(ContextOverflowError.isInstance(error)).toBe(true);
      expect((error as ContextOverflowError).promptTokens).toBeGreaterThan(256);
    });

    test("contextWindow caps the prompt and bounds the output", async () => {
      const probe = await generate("Window", { maxNewTokens: 1, seed: 1 });
      await probe.avalue();
      const promptTokens = probe.generation.usage!.promptTokens;
      const bounded = await generate("Window", {
        contextWindow: promptTokens + 3,
        seed: 1,
        ignoreEos: true,
      } as never);
      await bounded.avalue();
      expect(bounded.generation.usage?.completionTokens).toBe(3);
      expect(bounded.generation.finishReasons).toEqual(["length"]);
      const error = await text("Window", { contextWindow: promptTokens, seed: 1 }).catch(
        (caught: unknown) => caught,
      );
      expect(ContextOverflowError.isInstance(error)).toBe(true);
      expect((error as ContextOverflowError).contextSize).toBe(promptTokens);
      // The window set the limit: the message names it, not the context's size, which is larger already.
      expect((error as Error).message).toMatch(
        /the contextWindow option allows \d+ tokens\. .*raise contextWindow\./,
      );
      expect((error as Error).message).not.toMatch(/contextSize/);
    });

    test("invalid options are rejected before any work", async () => {
      const attempts: Array<[Record<string, unknown>, (error: unknown) => boolean]> = [
        [{ temperature: -1 }, InvalidModelOptionError.isInstance],
        [{ topP: 0 }, InvalidModelOptionError.isInstance],
        [{ topK: -1 }, InvalidModelOptionError.isInstance],
        [{ seed: -5 }, InvalidModelOptionError.isInstance],
        [{ stopSequences: [""] }, InvalidModelOptionError.isInstance],
        [{ logitBias: { notAToken: 1 } }, InvalidModelOptionError.isInstance],
        [{ temprature: 0.5 }, UnknownModelOptionError.isInstance],
        [{ grammar: "root ::= undefined-rule" }, GrammarError.isInstance],
        [{ toolChoice: "required" }, InvalidModelOptionError.isInstance],
      ];
      for (const [modelOptions, isExpected] of attempts) {
        const error = await backend
          .generateFromContext(new CBlock("Hi"), new ChatContext(), {
            modelOptions: modelOptions as ModelOptions,
          })
          .catch((caught: unknown) => caught);
        expect(isExpected(error), `${JSON.stringify(modelOptions)} gave ${String(error)}`).toBe(true);
      }
      expect(backend.context.runningGenerations).toBe(0);
    });

    test("a logit bias of -Infinity bans a token", async () => {
      const greedy = await generate("Ban", { maxNewTokens: 1, temperature: 0, logits: 1 });
      await greedy.avalue();
      const favourite = greedy.generation.logits!.steps[0]!.token!;
      const banned = await generate("Ban", {
        maxNewTokens: 1,
        temperature: 0,
        logits: 1,
        logitBias: { [favourite]: Number.NEGATIVE_INFINITY },
      });
      await banned.avalue();
      expect(banned.generation.logits!.steps[0]!.token).not.toBe(favourite);
    });
  });

  describe("cancellation", () => {
    test("aborting mid-stream rejects with GenerationAbortedError and leaves the backend usable", async () => {
      const controller = new AbortController();
      const { thunk } = await backend.generateFromContext(new CBlock("Abort me"), new ChatContext(), {
        modelOptions: { maxNewTokens: 200, seed: 1 },
        signal: controller.signal,
      });
      const first = await thunk.astream();
      expect(typeof first).toBe("string");
      controller.abort();
      const error = await thunk.avalue().catch((caught: unknown) => caught);
      expect(GenerationAbortedError.isInstance(error)).toBe(true);
      expect(thunk.generation.finishReasons).toEqual(["abort"]);
      expect(thunk.generation.usage!.completionTokens).toBeLessThan(200);
      expect(await text("Still there?", { maxNewTokens: 4, seed: 2 })).toBeTypeOf("string");
    });

    test("aborting before the first token (during prefill) rejects and frees the sequence", async () => {
      const controller = new AbortController();
      const { thunk } = await backend.generateFromContext(
        new CBlock("word ".repeat(150)),
        new ChatContext(),
        {
          modelOptions: { maxNewTokens: 50, seed: 1 },
          signal: controller.signal,
        },
      );
      controller.abort();
      const error = await thunk.avalue().catch((caught: unknown) => caught);
      expect(GenerationAbortedError.isInstance(error)).toBe(true);
      await waitFor(() => backend.context.runningGenerations === 0);
      expect(thunk.generation.finishReasons).toEqual(["abort"]);
    });

    test("aborting after the end changes nothing", async () => {
      const controller = new AbortController();
      const { thunk } = await backend.generateFromContext(new CBlock("Done"), new ChatContext(), {
        modelOptions: { maxNewTokens: 4, seed: 1 },
        signal: controller.signal,
      });
      const value = await thunk.avalue();
      controller.abort();
      expect(await thunk.avalue()).toBe(value);
      expect(thunk.generation.finishReasons).toEqual(["length"]);
    });

    test("one signal shared by many generations collects no listeners", async () => {
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on("warning", onWarning);
      const controller = new AbortController();
      for (let index = 0; index < 20; index++) {
        const { thunk } = await backend.generateFromContext(new CBlock("Again"), new ChatContext(), {
          modelOptions: { maxNewTokens: 2, seed: index },
          signal: controller.signal,
        });
        await thunk.avalue();
      }
      await new Promise((resolve) => setImmediate(resolve));
      process.off("warning", onWarning);
      expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
    });

    test("an already aborted signal starts nothing", async () => {
      const error = await backend
        .generateFromContext(new CBlock("No"), new ChatContext(), { signal: AbortSignal.abort() })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(backend.context.runningGenerations).toBe(0);
    });

    test("leaving a for-await early stops the generation and frees its sequence", async () => {
      const thunk = await generate("Break", { maxNewTokens: 200, seed: 9 });
      let chunks = 0;
      for await (const _ of thunk) if (++chunks === 2) break;
      expect(thunk.cancelled).toBe(true);
      await waitFor(() => backend.context.runningGenerations === 0);
      expect(thunk.generation.finishReasons).toEqual(["abort"]);
      const again = await generate("Break", { maxNewTokens: 6, seed: 9 });
      expect((await again.avalue()).length).toBeGreaterThan(0);
    });

    test("aclose() on an unread thunk stops native work", async () => {
      const thunk = await generate("Close", { maxNewTokens: 200, seed: 4 });
      await thunk.aclose();
      await waitFor(() => backend.context.runningGenerations === 0);
      expect(thunk.isComputed()).toBe(true);
    });
  });

  test("generateFromRaw of n actions equals n single runs with the same seed", async () => {
    const prompts = ["The cat", "A dog", "Some bird"];
    const modelOptions = { maxNewTokens: 12, seed: 11, temperature: 0.8 };
    const thunks = await backend.generateFromRaw(
      prompts.map((prompt) => new CBlock(prompt)),
      new ChatContext(),
      { modelOptions },
    );
    const batched = await Promise.all(thunks.map((thunk: ModelOutputThunk) => thunk.avalue()));
    const single: string[] = [];
    for (const prompt of prompts) single.push(await text(prompt, modelOptions));
    expect(batched).toEqual(single);
    expect(new Set(batched).size).toBe(3);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}
