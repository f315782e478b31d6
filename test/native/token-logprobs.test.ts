import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { argMax, generateEvents, logSoftmaxAt, openTinyContext } from "./tiny-model.js";

// tokenLogprobs: false lets greedy decoding without captures skip the log-sum-exp pass over the row
// (issue 14); the tokens must not change, and the default must keep every event's logprob.
describe("per-token logprobs on request (tokenLogprobs)", () => {
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

  it("keeps each greedy event's logprob by default, and the first largest raw logit as the token", async () => {
    const plain = await run({ temperature: 0 });
    const captured = await run({ temperature: 0, rawLogits: "full" });
    expect(plain.map((event) => event.token)).toEqual(captured.map((event) => event.token));
    for (const [index, event] of captured.entries()) {
      const raw = event.rawLogits!.full!;
      expect(event.token).toBe(argMax(raw));
      expect(plain[index]!.logprob).toBeCloseTo(logSoftmaxAt(raw, event.token), 4);
    }
  });

  it("leaves the logprob NaN with tokenLogprobs: false, and the tokens unchanged", async () => {
    for (const options of [
      { temperature: 0 },
      { temperature: 0, logits: 5 },
      { seed: 8, temperature: 0.8 },
      { seed: 8, temperature: 0.8, topK: 20 },
    ] satisfies GenerateTokensOptions[]) {
      const withLogprobs = await run(options);
      const without = await run({ ...options, tokenLogprobs: false });
      expect(without.map((event) => event.token)).toEqual(withLogprobs.map((event) => event.token));
      for (const event of withLogprobs) expect(Number.isFinite(event.logprob)).toBe(true);
      for (const event of without) expect(event.logprob).toBeNaN();
      // A capture keeps its own log-sum-exp, so its logprobs stay exact.
      if (options.logits !== undefined) {
        for (const [index, event] of without.entries()) {
          expect(event.logits!.chosenLogit - event.logits!.logSumExp).toBeCloseTo(
            withLogprobs[index]!.logprob,
            5,
          );
        }
      }
    }
  });

  it("refuses a tokenLogprobs that is not a boolean, naming the option", () => {
    expect(() => context.generate(prompt, { tokenLogprobs: "no" as unknown as boolean })).toThrow(
      InvalidOptionError,
    );
    expect(() => context.generate(prompt, { tokenLogprobs: 1 as unknown as boolean })).toThrow(
      /Expected a boolean for tokenLogprobs/,
    );
  });
});
