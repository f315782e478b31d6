// Greedy decoding with the raw row captured in full leaves the row's log-sum-exp to the pull, which
// computes it on the JavaScript thread from the captured row (DecodeJob::logSumExpOnPull, issue 14).
// What a consumer reads must not change: the same logSumExp, chosen logit and logprob, bit for bit, as a
// generation whose log-sum-exp the decode thread computed in place (a top-k capture), in every batch and
// whatever the queue's size or the reader's speed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { logSoftmaxAt, openTinyContext } from "./tiny-model.js";

describe("the log-sum-exp of a full greedy capture, computed by the pull", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  // The reference: a top-k capture's log-sum-exp and logprob are computed on the decode thread.
  let reference: TokenEvent[];
  beforeAll(async () => {
    ({ model, context, prompt } = await openTinyContext(
      { contextSize: 512, threads: 1 },
      "The quick brown fox jumps over the lazy dog",
    ));
    reference = await events({ rawLogits: 4, logits: 4, queueCapacity: 5 });
  });
  afterAll(() => model.dispose());

  // A slow reader with a small queue: batches of several events, and a decode thread parked on a full
  // queue between them, so deferred slots are completed in every position of the ring.
  async function events(options: GenerateTokensOptions, pauseMs = 3): Promise<TokenEvent[]> {
    const collected: TokenEvent[] = [];
    for await (const batch of context
      .generate(prompt, { temperature: 0, ignoreEos: true, maxTokens: 24, reusePrefix: false, ...options })
      .batches()) {
      collected.push(...batch.events);
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return collected;
  }

  for (const [name, options] of [
    ["raw full", { rawLogits: "full" }],
    ["raw and processed full", { rawLogits: "full", logits: "full" }],
    ["raw full, processed top-4", { rawLogits: "full", logits: 4 }],
    ["raw full, queue of 1", { rawLogits: "full", queueCapacity: 1 }],
    ["raw full, queue of 5", { rawLogits: "full", logits: "full", queueCapacity: 5 }],
  ] as const) {
    it(`${name}: logSumExp and logprob equal the in-place ones`, async () => {
      const captured = await events(options);
      expect(captured.map((event) => event.token)).toEqual(reference.map((event) => event.token));
      for (const [index, event] of captured.entries()) {
        const expected = reference[index]!;
        const raw = event.rawLogits!;
        expect(raw.logSumExp).toBe(expected.rawLogits!.logSumExp);
        expect(raw.chosenLogit).toBe(expected.rawLogits!.chosenLogit);
        expect(event.logprob).toBe(expected.logprob);
        expect(event.logprob).toBeCloseTo(logSoftmaxAt(raw.full!, event.token), 4);
        if (event.logits !== undefined) {
          expect(event.logits.logSumExp).toBe(expected.logits!.logSumExp);
          expect(Math.fround(event.logits.chosenLogit - event.logits.logSumExp)).toBe(event.logprob);
        }
        if (event.logits?.topIds !== undefined) {
          expect(Array.from(event.logits.topIds)).toEqual(Array.from(expected.logits!.topIds!));
        }
      }
    });
  }

  it("leaves the token logprob NaN with tokenLogprobs: false, and still gives the capture's logSumExp", async () => {
    const captured = await events({ rawLogits: "full", tokenLogprobs: false }, 0);
    expect(captured).toHaveLength(reference.length);
    for (const [index, event] of captured.entries()) {
      expect(event.logprob).toBeNaN();
      expect(event.rawLogits!.logSumExp).toBe(reference[index]!.rawLogits!.logSumExp);
    }
  });

  it("completes the events a reader takes after an abort", async () => {
    const controller = new AbortController();
    const stream = context.generate(prompt, {
      temperature: 0,
      ignoreEos: true,
      maxTokens: 24,
      reusePrefix: false,
      rawLogits: "full",
      queueCapacity: 3,
      signal: controller.signal,
    });
    const collected: TokenEvent[] = [];
    await expect(
      (async () => {
        for await (const batch of stream.batches()) {
          collected.push(...batch.events);
          // The queue fills while the reader waits; the abort comes with events still unread.
          if (collected.length >= 3) controller.abort();
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })(),
    ).rejects.toThrow();
    expect(collected.length).toBeGreaterThanOrEqual(3);
    for (const [index, event] of collected.entries()) {
      expect(event.rawLogits!.logSumExp).toBe(reference[index]!.rawLogits!.logSumExp);
      expect(event.logprob).toBe(reference[index]!.logprob);
    }
  });

  // Only greedy decoding on untouched logits leaves the sum to the pull. With processing samplers the
  // processed log-sum-exp is the processed row's own, and a reader that starts after the generation ended
  // must still get it: the choice was once read from the samplers at pull time, which finishing the job
  // clears, and such a reader then got the raw sum instead (positive logprobs with a logit bias).
  for (const [name, sampling] of [
    ["a logit bias", { logitBias: { 13: 20 } }],
    ["a grammar", { grammar: 'root ::= "a"+' }],
  ] as const) {
    it(`greedy with ${name}, read after the end: the processed row's own log-sum-exp and logprob`, async () => {
      const inPlace = await events({ ...sampling, rawLogits: 4, logits: 4 }, 0);
      const stream = context.generate(prompt, {
        temperature: 0,
        ignoreEos: true,
        maxTokens: 24,
        reusePrefix: false,
        rawLogits: "full",
        logits: "full",
        ...sampling,
      });
      // Let the generation finish before anything is pulled.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const late: TokenEvent[] = [];
      for await (const batch of stream.batches()) late.push(...batch.events);
      expect(late.map((event) => event.token)).toEqual(inPlace.map((event) => event.token));
      for (const [index, event] of late.entries()) {
        expect(event.logprob).toBeLessThanOrEqual(0);
        expect(event.logprob).toBe(inPlace[index]!.logprob);
        expect(event.logits!.logSumExp).toBe(inPlace[index]!.logits!.logSumExp);
        expect(event.rawLogits!.logSumExp).toBe(inPlace[index]!.rawLogits!.logSumExp);
      }
    });
  }
});
