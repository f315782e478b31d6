// OpenAI behaviours a client relies on, over real HTTP against tessera serve on the generated tiny model
// (real addon, one thread): json_object output, streamed logprobs that line up with the streamed text, and
// tool-call markup that never leaks into content. The tiny model has random weights, so structure comes
// from the grammar and the checks hold for any text it picks.
import { JSONParser } from "@streamparser/json";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { TesseraServer } from "../../src/server/index.js";
import { serveTinyModel, stopServedTinyModel } from "./served-tiny-model.js";

let backend: LlamaCppBackend;
let server: TesseraServer;
let client: OpenAI;

beforeAll(async () => {
  ({ backend, server, client } = await serveTinyModel({ sequences: 2 }));
});
afterAll(() => stopServedTinyModel({ backend, server }));

const hello = [{ role: "user" as const, content: "Tell me a story" }];

/** Null when `text` can still become a JSON document by appending to it, else the parser's complaint. */
function jsonPrefixProblem(text: string): string | null {
  const parser = new JSONParser();
  let problem: string | null = null;
  parser.onError = (error) => {
    problem = error.message;
  };
  parser.onValue = () => undefined;
  try {
    parser.write(text);
  } catch (error) {
    problem = (error as Error).message;
  }
  return problem;
}

/** A complete JSON object when the model stopped by itself; a valid prefix of one when max_tokens cut it. */
function expectJsonObject(text: string, finishReason: string | null): void {
  expect(text.trimStart().startsWith("{"), text).toBe(true);
  if (finishReason === "stop") {
    const value = JSON.parse(text) as unknown;
    expect(typeof value === "object" && value !== null && !Array.isArray(value), text).toBe(true);
  } else {
    expect(finishReason).toBe("length");
    expect(jsonPrefixProblem(text), text).toBeNull();
  }
}

describe('response_format {"type": "json_object"}', () => {
  it("constrains a non-streamed answer to a JSON object", async () => {
    const reasons = new Set<string>();
    for (const [seed, maxTokens] of [
      [1, 10],
      [2, 60],
      [3, 60],
      [4, 120],
    ] as const) {
      const completion = await client.chat.completions.create({
        model: "tiny",
        messages: hello,
        max_tokens: maxTokens,
        seed,
        response_format: { type: "json_object" },
      });
      const choice = completion.choices[0]!;
      reasons.add(choice.finish_reason);
      expectJsonObject(choice.message.content ?? "", choice.finish_reason);
    }
    // Ten tokens cannot finish an object with a random model inside a string: the prefix path ran.
    expect(reasons.has("length")).toBe(true);
  });

  it("constrains a streamed answer to a JSON object", async () => {
    for (const [seed, maxTokens] of [
      [5, 12],
      [6, 80],
    ] as const) {
      const stream = await client.chat.completions.create({
        model: "tiny",
        messages: hello,
        max_tokens: maxTokens,
        seed,
        stream: true,
        response_format: { type: "json_object" },
      });
      let text = "";
      let finish: string | null = null;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      expectJsonObject(text, finish);
    }
  });
});

type RawLogitsChunk = { tessera_raw_logits?: { content: Array<{ token: string }> } };

describe("streamed logprobs", () => {
  it("carry exactly the tokens whose text their chunk carries, raw logits too", async () => {
    let heldBack = 0;
    for (const seed of [1, 3, 4]) {
      const stream = await client.chat.completions.create({
        model: "tiny",
        messages: hello,
        max_tokens: 30,
        seed,
        temperature: 1,
        // Favour byte tokens, so that some tokens end inside a UTF-8 character (seeds 3 and 4 pick some).
        logit_bias: { "229": 6, "131": 6, "151": 6 },
        stream: true,
        logprobs: true,
        top_logprobs: 1,
        // @ts-expect-error tessera's extension field is not in the OpenAI types
        tessera_raw_logits_top_k: 1,
      });
      let tokens = 0;
      let chunks = 0;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (choice === undefined) continue;
        chunks += 1;
        const content = choice.delta.content ?? "";
        const logprobs = choice.logprobs?.content ?? [];
        const raw = (choice as unknown as RawLogitsChunk).tessera_raw_logits?.content ?? [];
        expect(logprobs.map((entry) => entry.token).join(""), `seed ${seed} chunk ${chunks}`).toBe(content);
        expect(raw.map((entry) => entry.token)).toEqual(logprobs.map((entry) => entry.token));
        for (const entry of logprobs) expect(entry.top_logprobs).toHaveLength(1);
        // A token ending inside a UTF-8 character has no text of its own and rides with the one completing it.
        heldBack += logprobs.filter((entry) => entry.token === "").length;
        tokens += logprobs.length;
      }
      expect(tokens).toBe(30);
    }
    // The random model picks byte tokens often enough for the hold-back path to run.
    expect(heldBack).toBeGreaterThan(0);
  });
});

describe('a tool call cut by max_tokens under tool_choice "required"', () => {
  const request = {
    model: "tiny",
    messages: [{ role: "user" as const, content: "Weather in Paris?" }],
    max_tokens: 6,
    seed: 4,
    tools: [
      {
        type: "function" as const,
        function: {
          name: "get_weather",
          parameters: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          },
        },
      },
    ],
    tool_choice: "required" as const,
  };

  it("leaves no markup in content (not streamed)", async () => {
    const completion = await client.chat.completions.create(request);
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("length");
    expect(choice.message.content ?? "").not.toContain("<tool_call");
    expect(choice.message.content ?? "").toBe("");
  });

  it("leaves no markup in content (streamed)", async () => {
    const stream = await client.chat.completions.create({ ...request, stream: true });
    let content = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("length");
    expect(content).toBe("");
  });
});
