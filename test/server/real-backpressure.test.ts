// Backpressure end to end on the real addon: a client that stops reading fills the socket buffers, the
// server stops pulling from the thunk, the thunk's queue fills, and native decoding pauses.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { Backend } from "../../src/core/backend.js";
import type { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import { startTesseraServer, type TesseraServer } from "../../src/server/index.js";

let backend: LlamaCppBackend;
let server: TesseraServer;
const thunks: Array<ModelOutputThunk<unknown>> = [];

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 2048, queueCapacity: 2 });
  // The real backend behind a recorder, so the test can watch the generation the server started.
  const recorder: Backend = {
    modelId: backend.modelId,
    capabilities: backend.capabilities,
    generateFromContext: async (action, context, options) => {
      const result = await backend.generateFromContext(action, context, options);
      thunks.push(result.thunk as ModelOutputThunk<unknown>);
      return result;
    },
    generateFromRaw: (actions, context, options) => backend.generateFromRaw(actions, context, options),
  };
  server = await startTesseraServer({ backend: recorder, port: 0 });
});
afterAll(async () => {
  await server?.close();
  await backend?.dispose();
});

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

it("pauses native decoding while the HTTP client does not read", async () => {
  const maxTokens = 1800;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const request = httpRequest(
      `${server.url}/v1/chat/completions`,
      { method: "POST", headers: { "content-type": "application/json" } },
      resolve,
    );
    request.on("error", reject);
    // Large events (20 logprobs and 100 raw logits per token) fill the socket buffers in a few hundred tokens;
    // the end-of-sequence token is banned so the model keeps going.
    request.end(
      JSON.stringify({
        model: backend.modelId,
        messages: [{ role: "user", content: "Tell me a long story" }],
        max_tokens: maxTokens,
        stream: true,
        logprobs: true,
        top_logprobs: 20,
        tessera_raw_logits_top_k: 100,
        logit_bias: { "2": -100 },
      }),
    );
  });
  response.pause();
  const thunk = thunks.at(-1)!;
  const decoded = () => thunk.generation.rawLogits?.steps.length ?? 0;
  // Wait until decoding stalls: the count stops moving.
  let previous = -1;
  for (let attempt = 0; attempt < 100 && decoded() !== previous; attempt += 1) {
    previous = decoded();
    await sleep(300);
  }
  const stalledAt = decoded();
  expect(stalledAt).toBeGreaterThan(0);
  // Measured 2026-11-29: it stalls near 370 of 1800 tokens (socket buffers plus the bounded queues).
  expect(stalledAt).toBeLessThan(maxTokens / 2);
  await sleep(500);
  expect(decoded()).toBe(stalledAt);
  expect(thunk.isComputed()).toBe(false);

  // Reading again resumes decoding to the end.
  let bytes = 0;
  response.on("data", (data: Buffer) => {
    bytes += data.length;
  });
  response.resume();
  await new Promise((resolve) => response.on("end", resolve));
  expect(thunk.generation.usage?.completionTokens).toBe(maxTokens);
  expect(bytes).toBeGreaterThan(1_000_000);
});
