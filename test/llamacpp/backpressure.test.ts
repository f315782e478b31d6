// A reader that stops reading pauses decoding: the thunk's bounded queue and the native ring buffer
// are the only buffers between llama.cpp and the reader.
import { afterAll, beforeAll, expect, test } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";

let backend: LlamaCppBackend;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 1024, queueCapacity: 1 });
});
afterAll(() => backend.dispose());

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

test("a thunk nobody reads stops decoding; reading resumes it to the end", async () => {
  const maxNewTokens = 600;
  const { thunk } = await backend.generateFromContext(new CBlock("Go on"), new ChatContext(), {
    modelOptions: { maxNewTokens, ignoreEos: true, seed: 1, logits: 1 } as never,
  });
  // The producer records a logits step for every token it takes from the native queue.
  const taken = () => thunk.generation.logits!.steps.length;
  // Wait until the producer stops taking tokens (quickly, unless the machine is very busy).
  let stalledAt = -1;
  for (let attempt = 0; attempt < 50 && taken() !== stalledAt; attempt++) {
    stalledAt = taken();
    await sleep(300);
  }
  await sleep(500);
  expect(taken()).toBe(stalledAt);
  // One queued chunk, one chunk waiting to be queued, each at most one native pull (32 tokens).
  expect(stalledAt).toBeLessThanOrEqual(3 * 32);
  expect(stalledAt).toBeLessThan(maxNewTokens);
  await thunk.avalue();
  expect(taken()).toBe(maxNewTokens);
  expect(thunk.generation.usage?.completionTokens).toBe(maxNewTokens);
  expect(thunk.generation.finishReasons).toEqual(["length"]);
});
