// Found in review of issue 15: when the output ends inside a character (here: a byte token that can only
// start a 3-byte character, forced by logit_bias), the decoder's final replacement character belonged
// to no token, so the last chunk carried text without logprobs and the non-streamed tokens did not add
// up to the content; and `bytes` held the UTF-8 of the decoded text, not the token's own bytes.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { startTesseraServer, type TesseraServer } from "../../src/server/index.js";

let backend: LlamaCppBackend;
let server: TesseraServer;
let client: OpenAI;
let model: string;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256 });
  server = await startTesseraServer({ backend, port: 0 });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "none", maxRetries: 0 });
  model = (await client.models.list()).data[0]!.id;
});
afterAll(async () => {
  await server?.close();
  await backend?.dispose();
});

// Token 231 of the tiny model's SentencePiece vocabulary is the byte token <0xE4>: the lead byte of a
// 3-byte character that never gets its continuation bytes.
const request = {
  messages: [{ role: "user" as const, content: "Say something" }],
  max_tokens: 3,
  logprobs: true,
  top_logprobs: 1,
  logit_bias: { "231": 100 },
  seed: 1,
};

describe("logprobs of an output that ends inside a character", () => {
  it("adds up to the content, with each token's own bytes (non-streamed)", async () => {
    const answer = await client.chat.completions.create({ model, ...request });
    const content = answer.choices[0]!.message.content ?? "";
    const tokens = answer.choices[0]!.logprobs!.content!;
    expect(tokens).toHaveLength(3);
    expect(tokens.map((token) => token.token).join("")).toBe(content);
    for (const token of tokens) expect(token.bytes).toEqual([0xe4]);
  });

  it("gives every streamed chunk the logprobs of exactly its text", async () => {
    const stream = await client.chat.completions.create({ model, ...request, stream: true });
    let tokens = 0;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      const text = choice.delta.content ?? "";
      const carried = choice.logprobs?.content ?? [];
      tokens += carried.length;
      expect(carried.map((token) => token.token).join(""), JSON.stringify(chunk)).toBe(text);
    }
    expect(tokens).toBe(3);
  });
});
