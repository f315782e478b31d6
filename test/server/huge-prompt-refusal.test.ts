// One huge request must not freeze tessera serve: a prompt whose UTF-8 bytes alone show it cannot fit the
// context (bytes / the vocabulary's longest token) is refused before it is tokenized (100,000 short
// messages once spent most of a minute in the synchronous tokenizer on the server thread), and /health
// keeps answering meanwhile. Real HTTP on the tiny model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { startTesseraServer, type TesseraServer } from "../../src/server/index.js";

let backend: LlamaCppBackend;
let server: TesseraServer;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, contextSize: 256 });
  server = await startTesseraServer({ backend, port: 0 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await backend?.dispose();
});

describe("a prompt far past the context", () => {
  it("is refused from its size alone, without tokenizing, and /health answers meanwhile", async () => {
    const content = "the river runs past the mill ".repeat(100_000); // ~2.9 MB
    let done = false;
    const healthMs: number[] = [];
    const probe = (async () => {
      while (!done) {
        const started = performance.now();
        const health = await fetch(`${server.url}/health`);
        await health.text();
        healthMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: backend.modelId, messages: [{ role: "user", content }], max_tokens: 1 }),
    });
    done = true;
    await probe;
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("context_length_exceeded");
    // "at least": the count is the bound from the bytes, so the tokenizer never ran.
    expect(body.error.message).toMatch(/the prompt is at least \d+ tokens/);
    expect(Math.max(...healthMs)).toBeLessThan(1_000);
  }, 60_000);

  it("counts a prompt that may fit exactly, so the refusal blames the right field with a number that fits", async () => {
    // 1,949 characters: the byte bound says at least ~73 tokens (under the 256 of the context), the
    // tokenizer 301. Before, this was refused from the bound, blaming max_tokens with a limit that did not fit.
    const words = ["river", "stone", "garden", "letter"];
    const prompt = Array.from({ length: 300 }, (_, index) => words[index % 4]).join(" ");
    const send = async (maxTokens: number) => {
      const response = await fetch(`${server.url}/v1/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: backend.modelId, prompt, max_tokens: maxTokens }),
      });
      return {
        status: response.status,
        ...((await response.json()) as { error: { param: string; message: string } }),
      };
    };
    const refused = await send(5000);
    expect(refused.status).toBe(400);
    expect(refused.error.param).toBe("prompt");
    expect(refused.error.message).toMatch(/the prompt is \d+ tokens and max_tokens asks for 5000 more/);
    expect(refused.error.message).not.toMatch(/at least|Lower max_tokens|lower max_tokens/);
    expect(refused.error.message).toMatch(/Shorten the prompt\.$/);
  }, 60_000);

  it("names max_tokens, with what fits, only when the prompt alone fits", async () => {
    const response = await fetch(`${server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: backend.modelId, prompt: "Once upon a time", max_tokens: 5000 }),
    });
    const body = (await response.json()) as { error: { param: string; message: string } };
    expect(body.error.param).toBe("max_tokens");
    const fits = Number(/Lower max_tokens to at most (\d+)/.exec(body.error.message)?.[1]);
    const retry = await fetch(`${server.url}/v1/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: backend.modelId, prompt: "Once upon a time", max_tokens: fits }),
    });
    await retry.text();
    expect(retry.status).toBe(200);
  }, 60_000);

  it("names max_completion_tokens when the request set the output's length with it", async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: backend.modelId,
        messages: [{ role: "user", content: "hi" }],
        max_tokens: 10,
        max_completion_tokens: 5000,
      }),
    });
    const body = (await response.json()) as { error: { param: string; message: string } };
    expect(response.status).toBe(400);
    expect(body.error.param).toBe("max_completion_tokens");
    expect(body.error.message).toMatch(
      /max_completion_tokens asks for 5000 more .* Lower max_completion_tokens to at most \d+\.$/,
    );
    expect(body.error.message).not.toMatch(/\bmax_tokens\b/);
  }, 60_000);
});
