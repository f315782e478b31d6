import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GrammarError } from "../../src/backends/llamacpp/errors/grammar-error.js";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import { argMax, generateEvents, logSoftmaxAt, openTinyContext } from "./tiny-model.js";

describe("sampling on the native decode thread", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  beforeAll(async () => {
    ({ model, context, prompt } = await openTinyContext(
      { contextSize: 512, threads: 1 },
      "The quick brown fox jumps over the lazy dog",
    ));
  });
  afterAll(() => model.dispose());

  const run = (options: GenerateTokensOptions): Promise<TokenEvent[]> =>
    generateEvents(context, prompt, options);

  it("gives the same tokens for the same seed, and other tokens for another seed", async () => {
    const options = { temperature: 1.5, seed: 1234, maxTokens: 24 };
    const first = (await run(options)).map((event) => event.token);
    const second = (await run(options)).map((event) => event.token);
    const other = (await run({ ...options, seed: 99 })).map((event) => event.token);
    expect(second).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it("picks the arg-max of the processed logits when greedy", async () => {
    const events = await run({ temperature: 0, topK: 40, repeatPenalty: 1.3, logits: "full" });
    for (const event of events) expect(argMax(event.logits!.full!)).toBe(event.token);
  });

  it("leaves processed equal to raw when no processing sampler is set", async () => {
    const events = await run({ seed: 5, logits: "full", rawLogits: "full" });
    for (const event of events) {
      const processed = event.logits!.full!;
      const raw = event.rawLogits!.full!;
      expect(processed.length).toBe(model.vocabSize);
      // Element-wise (a deep equality of 32k-element arrays is slow in the matcher).
      expect(processed.every((value, index) => value === raw[index])).toBe(true);
      expect(event.logits!.chosenLogit).toBe(event.rawLogits!.chosenLogit);
    }
  });

  it("keeps exactly k finite processed logits with top-k = k", async () => {
    const events = await run({ seed: 3, temperature: 0.9, topK: 7, logits: "full" });
    for (const event of events) {
      const finite = event.logits!.full!.filter((value) => Number.isFinite(value));
      expect(finite.length).toBe(7);
      expect(Number.isFinite(event.logits!.full![event.token]!)).toBe(true);
    }
  });

  it("reports the chosen token's logprob as the log-softmax of the processed logits", async () => {
    const events = await run({ seed: 11, temperature: 0.7, topP: 0.9, logits: "full", rawLogits: 20 });
    for (const event of events) {
      const full = event.logits!.full!;
      expect(event.logprob).toBeCloseTo(logSoftmaxAt(full, event.token), 4);
      expect(event.logits!.chosenLogit - event.logits!.logSumExp).toBeCloseTo(event.logprob, 4);
    }
  });

  it("draws from the temperature-scaled distribution on the dense path, with exact processed logits", async () => {
    const events = await run({
      seed: 21,
      temperature: 0.7,
      logits: "full",
      rawLogits: "full",
      maxTokens: 24,
    });
    for (const event of events) {
      const processed = event.logits!.full!;
      const raw = event.rawLogits!.full!;
      expect(processed.every((value, index) => value === Math.fround(raw[index]! / Math.fround(0.7)))).toBe(
        true,
      );
      expect(event.logprob).toBeCloseTo(logSoftmaxAt(processed, event.token), 4);
    }
    // A low temperature concentrates the draw on the likeliest tokens (a broken draw would pick
    // tokens with log-probabilities in the hundreds below zero).
    const cold = await run({ seed: 2, temperature: 0.01, logits: "full", maxTokens: 24 });
    const atArgMax = cold.filter((event) => event.token === argMax(event.logits!.full!)).length;
    expect(atArgMax).toBeGreaterThanOrEqual(cold.length * 0.6);
    for (const event of cold) expect(event.logprob).toBeGreaterThan(Math.log(1e-3));
  });

  it("draws tokens with the frequencies of the processed distribution", async () => {
    const temperature = 0.02;
    const [reference] = await run({ seed: 1, temperature, logits: "full", maxTokens: 1 });
    const processed = reference!.logits!.full!;
    const probability = (token: number) => Math.exp(logSoftmaxAt(processed, token));
    const counts = new Map<number, number>();
    const draws = 300;
    for (let seed = 0; seed < draws; seed++) {
      const [event] = await run({ seed, temperature, maxTokens: 1 });
      counts.set(event!.token, (counts.get(event!.token) ?? 0) + 1);
    }
    for (const [token, count] of counts) {
      const expected = probability(token) * draws;
      const deviation = Math.sqrt(draws * probability(token) * (1 - probability(token)));
      expect(Math.abs(count - expected)).toBeLessThanOrEqual(4 * deviation + 1);
    }
  });

  it("captures exact top-k raw logits with the log-sum-exp of the whole vector", async () => {
    const events = await run({ seed: 8, rawLogits: "full", logits: 5 });
    const topK = await run({ seed: 8, rawLogits: 5, logits: 5 });
    expect(topK.map((event) => event.token)).toEqual(events.map((event) => event.token));
    events.forEach((event, index) => {
      const full = event.rawLogits!.full!;
      const top = topK[index]!.rawLogits!;
      const expected = [...full.keys()].sort((a, b) => full[b]! - full[a]!).slice(0, 5);
      expect([...top.topIds!]).toEqual(expected);
      expect([...top.topLogits!]).toEqual(expected.map((id) => full[id]));
      expect(top.chosenLogit).toBe(full[event.token]);
      expect(top.chosenLogit - top.logSumExp).toBeCloseTo(logSoftmaxAt(full, event.token), 4);
      // Full raw captures carry the same whole-vector log-sum-exp (computed by the addon).
      expect(event.rawLogits!.chosenLogit).toBe(full[event.token]);
      expect(event.rawLogits!.logSumExp).toBeCloseTo(top.logSumExp, 4);
    });
  });

  it("applies a logit bias that bans and forces tokens", async () => {
    const forced = 1000;
    const events = await run({ temperature: 0, logitBias: new Map([[forced, 100]]) });
    expect(events.every((event) => event.token === forced)).toBe(true);
  });

  it("always produces output the grammar accepts", async () => {
    const grammar = [
      'root ::= "{\\"n\\": " number ", \\"ok\\": " boolean "}"',
      "number ::= [1-9] [0-9]?",
      'boolean ::= "true" | "false"',
    ].join("\n");
    for (const seed of [1, 2, 3, 4, 5]) {
      const stream = context.generate(prompt, { grammar, seed, temperature: 1, maxTokens: 64 });
      const result = await stream.collect();
      expect(result.finishReason).toBe("stop");
      const parsed = JSON.parse(result.text) as { n: number; ok: boolean };
      expect(typeof parsed.n).toBe("number");
      expect(typeof parsed.ok).toBe("boolean");
    }
  });

  it("rejects a grammar that does not parse before any work", () => {
    expect(() => context.generate(prompt, { grammar: "root ::= missing-rule" })).toThrow(GrammarError);
    expect(() => context.generate(prompt, { grammar: 'root ::= "a' })).toThrow(/unexpected end of input/);
    expect(() => context.generate(prompt, { grammar: 'start ::= "a"' })).toThrow(/root/);
  });

  it("rejects invalid sampler options with what was expected", () => {
    const cases: [GenerateTokensOptions, RegExp][] = [
      [{ temperature: -1 }, /Expected a finite number >= 0 and <= [0-9.e+]+ for temperature but received -1/],
      [{ topP: 0 }, /topP/],
      [{ topP: 1.5 }, /topP/],
      [{ topK: -1 }, /topK/],
      [{ minP: 2 }, /minP/],
      [{ maxTokens: 0 }, /maxTokens/],
      [{ seed: 1.5 }, /seed/],
      [{ logits: 0 }, /logits/],
      [{ rawLogits: "all" as never }, /rawLogits/],
      [{ logitBias: { 40000: 1 } }, /logitBias/],
      [{ queueCapacity: 0 }, /queueCapacity/],
      [{ temprature: 1 } as never, /temprature/],
    ];
    for (const [options, message] of cases) {
      expect(() => context.generate(prompt, options)).toThrow(InvalidOptionError);
      expect(() => context.generate(prompt, options)).toThrow(message);
    }
    expect(() => context.generate([1, 32000])).toThrow(/promptTokens\[1\]/);
    expect(() => context.generate([])).toThrow(InvalidOptionError);
  });

  it("fails a prompt longer than the context before decoding, naming both numbers", () => {
    const long = new Int32Array(600).fill(100);
    const error = (() => {
      try {
        context.generate(long);
      } catch (caught) {
        return caught;
      }
    })();
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect((error as ContextOverflowError).message).toMatch(/600 tokens.*holds 512 tokens/);
    expect(() => context.generate(prompt, { maxTokens: 510 })).toThrow(ContextOverflowError);
    expect(context.sequenceTokens(0).length).toBeLessThan(600);
  });

  it("computes prompt log-probabilities from the raw logits", async () => {
    const stream = context.generate(prompt, { promptLogprobs: true, maxTokens: 1, rawLogits: "full" });
    const result = await stream.collect();
    const logprobs = result.promptLogprobs!;
    expect(logprobs.length).toBe(prompt.length);
    expect(Number.isNaN(logprobs[0])).toBe(true);
    for (let index = 1; index < logprobs.length; index++) {
      expect(logprobs[index]).toBeLessThanOrEqual(0);
      expect(Number.isFinite(logprobs[index])).toBe(true);
    }
  });
});
