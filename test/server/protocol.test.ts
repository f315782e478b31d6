import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { AbstractTool } from "../../src/core/abstract-tool.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import type { ErrorKind } from "../../src/core/errors/error-kind.js";
import { TesseraError } from "../../src/core/errors/tessera-error.js";
import { ModelToolCall } from "../../src/core/model-tool-call.js";
import { ClientSideToolError, createTesseraApp, InvalidApiKeyError } from "../../src/server/index.js";
import { ScriptedBackend } from "../../src/testing/scripted-backend.js";
import { closeServersAfterEach, hello, serve } from "./scripted-server.js";

closeServersAfterEach();

describe("tessera serve speaks the OpenAI protocol (official client)", () => {
  it("lists its model and reports health", async () => {
    const { client, server } = await serve(["unused"]);
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toEqual(["scripted-model"]);
    const health = await (await fetch(`${server.url}/health`)).json();
    expect(health).toMatchObject({ status: "ok", active: 0, queued: 0 });
  });

  it("answers a chat completion without streaming", async () => {
    const { client, backend } = await serve(["Hello there"]);
    const completion = await client.chat.completions.create({
      model: "scripted-model",
      messages: [
        { role: "system", content: "Be brief" },
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello" },
        { role: "user", content: "Again" },
      ],
      temperature: 0.5,
      max_tokens: 12,
      seed: 7,
      stop: ["\n"],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]!.message.content).toBe("Hello there");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage?.completion_tokens).toBe(2);
    const call = backend.calls[0]!;
    expect(call.options.modelOptions).toMatchObject({
      temperature: 0.5,
      maxNewTokens: 12,
      seed: 7,
      stopSequences: ["\n"],
    });
    // The history arrives as a context; the last message is the action.
    expect(call.view?.map((span) => (span as unknown as { role: string }).role)).toEqual([
      "system",
      "user",
      "assistant",
    ]);
    expect((call.action as unknown as { content: string }).content).toBe("Again");
  });

  it("streams a chat completion with usage", async () => {
    const { client, server } = await serve(["Hello streaming world"]);
    const stream = await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let finish: string | null = null;
    let usage: unknown = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) pieces.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.join("")).toBe("Hello streaming world");
    // Streamed (hijacked) replies are counted too, once, when their response finishes.
    await expect
      .poll(async () => (await fetch(`${server.url}/metrics`)).text())
      .toContain('tessera_http_requests_total{route="/v1/chat/completions",status="200"} 1');
    expect(pieces.length).toBeGreaterThan(1);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ completion_tokens: 3 });
  });

  it("passes tools to the backend and returns its tool calls", async () => {
    const { client, backend } = await serve((call) => {
      const tool = call.options.tools![0]! as unknown as AbstractTool<never, unknown>;
      return { text: "", toolCalls: [new ModelToolCall("get_weather", tool, { city: "Paris" }, "call_1")] };
    });
    const tools = [
      {
        type: "function" as const,
        function: {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ];
    const completion = await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      tools,
    });
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
    ]);
    expect(backend.calls[0]!.options.tools!.map((tool) => tool.asJsonTool())).toEqual(tools);
    // The declared tool only describes; running it on the server is refused with a typed error.
    const declared = backend.calls[0]!.options.tools![0]!;
    expect(() => declared.run({})).toThrow(ClientSideToolError);

    const stream = await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      tools,
      stream: true,
    });
    const fragments: unknown[] = [];
    for await (const chunk of stream) fragments.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(fragments).toEqual([
      {
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);
  });

  // When max_tokens ended the output after one complete call (a partial second one was dropped), OpenAI
  // reports "length", not "tool_calls": the client must know the answer was cut.
  it('says finish_reason "length" when max_tokens cut output that holds a tool call', async () => {
    const { client } = await serve((call) => {
      const tool = call.options.tools![0]! as unknown as AbstractTool<never, unknown>;
      return {
        text: "",
        finishReason: "length",
        toolCalls: [new ModelToolCall("get_weather", tool, { city: "Paris" }, "call_1")],
      };
    });
    const tools = [
      {
        type: "function" as const,
        function: { name: "get_weather", parameters: { type: "object", properties: {} } },
      },
    ];
    const completion = await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      tools,
    });
    expect(completion.choices[0]!.finish_reason).toBe("length");
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1);
    const stream = await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      tools,
      stream: true,
    });
    let finish: string | null = null;
    for await (const chunk of stream) finish = chunk.choices[0]?.finish_reason ?? finish;
    expect(finish).toBe("length");
  });

  /** A chat completion of `hello` on the scripted server, constrained to `schema`. */
  const answerWithSchema = (client: OpenAI, schema: Record<string, unknown>) =>
    client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      response_format: { type: "json_schema", json_schema: { name: "person", schema } },
    });

  it("turns response_format json_schema into a format the backend validates", async () => {
    const { client, backend } = await serve(['{"name":"Ada","age":36}']);
    const completion = await answerWithSchema(client, {
      type: "object",
      properties: { name: { type: "string" }, age: { type: "integer" } },
      required: ["name", "age"],
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ name: "Ada", age: 36 });
    const format = backend.calls[0]!.options.format!;
    expect(format.safeParse({ name: "Ada", age: 36 }).success).toBe(true);
    expect(format.safeParse({ name: "Ada" }).success).toBe(false);
    // The schema leaves additionalProperties out: closed, as llama-server and OpenAI's strict mode read it.
    expect(format.safeParse({ name: "Ada", age: 36, nickname: "A" }).success).toBe(false);
  });

  it("keeps a free-form object open, and refuses a schema too deep to read with a 400 naming it", async () => {
    const { client, backend } = await serve(['{"name":"Ada","meta":{"any":1}}']);
    await answerWithSchema(client, {
      type: "object",
      properties: { name: { type: "string" }, meta: { type: "object" } },
    });
    const format = backend.calls[0]!.options.format!;
    expect(format.safeParse({ name: "Ada", meta: { any: 1 } }).success).toBe(true);
    expect(format.safeParse({ name: "Ada", other: 1 }).success).toBe(false);

    let deep: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 2_000; level++) deep = { type: "object", properties: { x: deep } };
    const refused = await answerWithSchema(client, deep).catch((error: unknown) => error);
    expect((refused as { status?: number }).status).toBe(400);
    expect((refused as { error?: { param?: string } }).error?.param).toBe(
      "response_format.json_schema.schema",
    );
    expect(String((refused as Error).message)).toContain("nests deeper than 256 levels");
  });

  it("answers /v1/completions, streamed and not", async () => {
    const { client } = await serve(["continued text", "more words here"]);
    const completion = await client.completions.create({
      model: "scripted-model",
      prompt: "Once upon",
      max_tokens: 5,
    });
    expect(completion.choices[0]!.text).toBe("continued text");
    const stream = await client.completions.create({ model: "scripted-model", prompt: "Once", stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    expect(text).toBe("more words here");
  });
});

describe("tessera serve refuses bad requests with OpenAI errors", () => {
  it("validates bodies with a 400 that names the field", async () => {
    const { client } = await serve(["unused"]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello, temperature: -1 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("temperature");
    const empty = await client.chat.completions
      .create({ model: "scripted-model", messages: [] })
      .catch((caught: unknown) => caught);
    expect((empty as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
  });

  it("refuses unparsable JSON and oversized bodies", async () => {
    const { server } = await serve(["unused"], { maxBodyBytes: 1024 });
    const broken = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const huge = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "x".repeat(4096) }] }),
    });
    expect(huge.status).toBe(413);
  });

  it("requires the API key when one is set, except for /health", async () => {
    const { server } = await serve(["Hello"], { apiKey: "secret" });
    const refused = await fetch(`${server.url}/v1/models`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("invalid_api_key");
    const wrong = await fetch(`${server.url}/v1/models`, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "secret", maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "scripted-model", messages: hello });
    expect(completion.choices[0]!.message.content).toBe("Hello");
  });

  it("refuses an API key that would guard nothing or that no client could send", async () => {
    const app = (apiKey: unknown) => () =>
      createTesseraApp({ backend: new ScriptedBackend({ responses: [] }), apiKey } as never);
    expect(app("")).toThrow(InvalidApiKeyError);
    expect(app("")).toThrow(/^apiKey is empty/);
    for (const key of [" ", "\t", "abc ", " abc", "clé", "a\nb"]) expect(app(key)).toThrow(/visible ASCII/);
    expect(app(null)).toThrow(/apiKey must be a string, but is object/);
    expect(app("s3cret key")).not.toThrow();
    // Past a request header's size no client could send it.
    expect(app("k".repeat(20_000))).toThrow(/20000 characters long.*at most 8192/);
    expect(app("k".repeat(8192))).not.toThrow();
  });

  it("reports a context overflow as a 400 before any stream starts", async () => {
    const { client } = await serve([{ text: "", throwOnCall: new ContextOverflowError(9000, 2048, 10) }]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello, stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("context_length_exceeded");
  });

  it("sends an error event, not [DONE], when the generation fails mid-stream", async () => {
    const { client } = await serve([{ text: "partial answer", failWith: new Error("decoder exploded") }]);
    const stream = await client.chat.completions.create({
      model: "scripted-model",
      messages: hello,
      stream: true,
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().catch((caught: unknown) => caught);
    expect(text).toBe("partial answer");
    expect((error as Error).message).toContain("decoder exploded");
  });
});

/** A TesseraError from some other copy or subclass with a kind outside the union (or none at all). */
class StrangeKindError extends TesseraError {
  override readonly kind = "weird-kind" as unknown as ErrorKind;
}

/** Read a streamed answer's raw SSE text; a hang fails the test at the timeout instead of passing. */
async function streamedBody(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "scripted-model", messages: hello, stream: true }),
    signal: AbortSignal.timeout(5000),
  });
  expect(response.status).toBe(200);
  return await response.text();
}

describe("tessera serve ends every stream, whatever the failure (review of issue 13)", () => {
  it("answers an error whose kind is outside the union as an internal 500", async () => {
    const { client } = await serve([{ text: "", throwOnCall: new StrangeKindError("the secret detail") }]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.InternalServerError>).code).toBe("internal_error");
    expect((error as Error).message).toContain("the secret detail");
    expect((error as Error).message).not.toContain("Cannot read");
  });

  it("ends the stream with an error event when a mid-stream error has an unknown kind", async () => {
    const failWith = new StrangeKindError("odd failure");
    const { server } = await serve([{ text: "partial", chunks: ["par", "tial"], failWith }]);
    const body = await streamedBody(server.url);
    expect(body).toContain('"content":"par"');
    expect(body).toContain("odd failure");
    expect(body).toContain('"code":"internal_error"');
    expect(body).not.toContain("[DONE]");
  }, 10_000);

  it("ends the stream with an error event when the generation fails with null", async () => {
    const { server } = await serve([{ text: "partial", chunks: ["par", "tial"], failWith: null }]);
    const body = await streamedBody(server.url);
    expect(body).toContain('"code":"internal_error"');
    expect(body).not.toContain("[DONE]");
  }, 10_000);

  it("ends the stream even when the error cannot be mapped (a getter that throws)", async () => {
    const failWith = {
      get statusCode(): number {
        throw new Error("a hostile getter");
      },
    };
    const { server } = await serve([{ text: "partial", chunks: ["par", "tial"], failWith }]);
    const body = await streamedBody(server.url);
    expect(body).toContain('"code":"internal_error"');
    expect(body).not.toContain("[DONE]");
  }, 10_000);

  it("answers a thrown null before the stream starts as an internal 500", async () => {
    const { client } = await serve([{ text: "", throwOnCall: null }]);
    const error = await client.chat.completions
      .create({ model: "scripted-model", messages: hello })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
  }, 10_000);
});
