// The official openai client and OpenAIBackend against tessera serve on the generated tiny model (real
// addon, one thread): the protocol end to end, through our own stack.
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { OpenAIBackend } from "../../src/backends/openai/index.js";
import { CBlock } from "../../src/core/cblock.js";
import type { TesseraServer } from "../../src/server/index.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { serveTinyModel, stopServedTinyModel } from "./served-tiny-model.js";

let backend: LlamaCppBackend;
let server: TesseraServer;
let client: OpenAI;

beforeAll(async () => {
  ({ backend, server, client } = await serveTinyModel({ sequences: 4, queue: 8 }));
});
afterAll(() => stopServedTinyModel({ backend, server }));

const hello = [{ role: "user" as const, content: "Tell me a story" }];

describe("the official client against tessera serve on the tiny model", () => {
  it("answers without streaming, with usage and a finish reason", async () => {
    const completion = await client.chat.completions.create({
      model: "tiny",
      messages: hello,
      max_tokens: 8,
      seed: 3,
    });
    expect(completion.model).toBe("tiny");
    expect(completion.choices[0]!.finish_reason).toBe("length");
    expect(completion.usage?.completion_tokens).toBe(8);
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(3);
    expect(typeof completion.choices[0]!.message.content).toBe("string");
  });

  it("streams the same text as the non-streamed answer for the same seed", async () => {
    const request = { model: "tiny", messages: hello, max_tokens: 12, seed: 11, temperature: 0.8 };
    const whole = await client.chat.completions.create(request);
    const stream = await client.chat.completions.create({
      ...request,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage ??= chunk.usage ?? undefined;
    }
    expect(text).toBe(whole.choices[0]!.message.content);
    expect(usage?.completion_tokens).toBe(12);
  });

  it("returns logprobs with top alternatives, and raw logits through the extension field", async () => {
    const completion = await client.chat.completions.create({
      model: "tiny",
      messages: hello,
      max_tokens: 6,
      seed: 5,
      logprobs: true,
      top_logprobs: 3,
      // @ts-expect-error tessera's extension field is not in the OpenAI types
      tessera_raw_logits_top_k: 2,
    });
    const choice = completion.choices[0]! as OpenAI.ChatCompletion.Choice & {
      tessera_raw_logits?: { top_k: number; content: Array<{ top: unknown[]; token_id: number }> };
    };
    const content = choice.logprobs!.content!;
    expect(content).toHaveLength(6);
    for (const step of content) {
      expect(step.logprob).toBeLessThanOrEqual(0);
      expect(step.top_logprobs).toHaveLength(3);
      expect(step.top_logprobs[0]!.logprob).toBeGreaterThanOrEqual(step.top_logprobs[2]!.logprob);
    }
    expect(content.map((step) => step.token).join("")).toBe(choice.message.content);
    expect(choice.tessera_raw_logits?.top_k).toBe(2);
    expect(choice.tessera_raw_logits?.content).toHaveLength(6);
    expect(choice.tessera_raw_logits!.content[0]!.top).toHaveLength(2);
  });

  /** A chat completion of `hello` constrained to `schema` (seed 2, 40 tokens at most). */
  const answerWithSchema = (schema: Record<string, unknown>) =>
    client.chat.completions.create({
      model: "tiny",
      messages: hello,
      max_tokens: 40,
      seed: 2,
      response_format: { type: "json_schema", json_schema: { name: "answer", schema } },
    });

  it("constrains the output to a response_format JSON schema", async () => {
    const completion = await answerWithSchema({
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
      additionalProperties: false,
    });
    const parsed = JSON.parse(completion.choices[0]!.message.content!) as { ok: unknown };
    expect(typeof parsed.ok).toBe("boolean");
  });

  it("takes a response_format JSON schema that leaves additionalProperties out", async () => {
    // It used to be refused with a message about "#/additionalProperties", a keyword the request never had.
    // An object that leaves additionalProperties out is closed, as llama-server and OpenAI's strict mode read it.
    const completion = await answerWithSchema({
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"],
    });
    // Closed as llama-server reads it (no other keys), so it ends as the schema with
    // additionalProperties: false above does.
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    const parsed = JSON.parse(completion.choices[0]!.message.content!) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(["ok"]);
    expect(typeof parsed.ok).toBe("boolean");
  });

  it("refuses a response_format whose grammar is too large by naming its schema", async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 4_000 }, (_, index) => [`field${index}`, { type: "string" }]),
    );
    const refused = await answerWithSchema({ type: "object", properties }).catch((error: unknown) => error);
    expect((refused as { status?: number }).status).toBe(400);
    expect((refused as { error?: { param?: string } }).error?.param).toBe(
      "response_format.json_schema.schema",
    );
    expect(String((refused as Error).message)).toMatch(
      /The schema in response_format\.json_schema\.schema makes a grammar of \d+ bytes; constrained decoding takes at most 262144 bytes\./,
    );
  });

  it("returns a tool call when a tool is required", async () => {
    const request = {
      model: "tiny",
      messages: [{ role: "user" as const, content: "Weather in Paris?" }],
      max_tokens: 60,
      seed: 4,
      tools: [
        {
          type: "function" as const,
          function: {
            name: "get_weather",
            description: "Weather for a city",
            parameters: {
              type: "object",
              properties: { city: { type: "string", enum: ["Paris", "Rome"] } },
              required: ["city"],
              additionalProperties: false,
            },
          },
        },
      ],
      tool_choice: "required" as const,
    };
    const completion = await client.chat.completions.create(request);
    const choice = completion.choices[0]!;
    // The grammar allows more calls after the first: the model stops by itself ("tool_calls") or
    // max_tokens cuts a later call ("length", as OpenAI reports a cut output), after a complete first one.
    expect(["tool_calls", "length"]).toContain(choice.finish_reason);
    if (choice.finish_reason === "length") expect(completion.usage?.completion_tokens).toBe(60);
    // The local backend's <tool_call> markup never reaches OpenAI clients as content.
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("get_weather");
    expect(["Paris", "Rome"]).toContain((JSON.parse(call.function.arguments) as { city: string }).city);

    const stream = await client.chat.completions.create({ ...request, stream: true });
    let content = "";
    const calls: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(content).toBe("");
    // The same seed: the streamed answer ends as the non-streamed one did.
    expect(finish).toBe(choice.finish_reason);
    expect(calls[0]?.function?.name).toBe("get_weather");
  });

  it("serves concurrent requests as parallel sequences", async () => {
    // Sample how many generations the native context runs at once while the requests are in flight.
    let mostAtOnce = 0;
    const sampler = setInterval(() => {
      mostAtOnce = Math.max(mostAtOnce, backend.context.runningGenerations);
    }, 1);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((seed) =>
        client.chat.completions.create({
          model: "tiny",
          messages: hello,
          max_tokens: 48,
          seed,
          temperature: 0.9,
        }),
      ),
    );
    clearInterval(sampler);
    for (const answer of answers) expect(answer.usage?.completion_tokens).toBe(48);
    expect(mostAtOnce).toBeGreaterThan(1);
    expect(mostAtOnce).toBeLessThanOrEqual(4);
    expect(server.limiter.active).toBe(0);
    expect(backend.context.runningGenerations).toBe(0);
  });

  it("cancels the generation when the client disconnects, and keeps serving", async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "tiny", messages: hello, max_tokens: 200, stream: true },
      { signal: controller.signal },
    );
    let chunks = 0;
    await (async () => {
      for await (const _chunk of stream) {
        chunks += 1;
        if (chunks === 3) controller.abort();
      }
    })().catch(() => undefined);
    await expect.poll(() => server.limiter.active, { timeout: 10_000 }).toBe(0);
    expect(await server.metrics.cancelled.get()).toMatchObject({ values: [{ value: 1 }] });
    await expect.poll(() => backend.context.runningGenerations, { timeout: 10_000 }).toBe(0);
    // No sequence leaked: all four of the context's sequences serve at once afterwards.
    const after = await Promise.all(
      [1, 2, 3, 4].map(() =>
        client.chat.completions.create({ model: "tiny", messages: hello, max_tokens: 4 }),
      ),
    );
    for (const answer of after) expect(answer.usage?.completion_tokens).toBe(4);
  });

  it("answers /v1/completions", async () => {
    const completion = await client.completions.create({
      model: "tiny",
      prompt: "Once upon a time",
      max_tokens: 5,
    });
    expect(completion.object).toBe("text_completion");
    expect(completion.usage?.completion_tokens).toBe(5);
    expect(completion.choices[0]!.finish_reason).toBe("length");

    const withLogprobs = await client.completions.create({
      model: "tiny",
      prompt: "Once",
      max_tokens: 4,
      logprobs: 2,
    });
    const logprobs = withLogprobs.choices[0]!.logprobs!;
    expect(logprobs.tokens).toHaveLength(4);
    expect(logprobs.tokens!.join("")).toBe(withLogprobs.choices[0]!.text);
    expect(logprobs.text_offset).toEqual(
      [0, 1, 2, 3].map((index) => logprobs.tokens!.slice(0, index).join("").length),
    );
    expect(Object.keys(logprobs.top_logprobs![0]!).length).toBeLessThanOrEqual(2);
    expect(logprobs.token_logprobs![0]).toBeLessThanOrEqual(0);

    const stream = await client.completions.create({
      model: "tiny",
      prompt: "Once",
      max_tokens: 4,
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? "";
    expect(text.length).toBeGreaterThan(0);
  });

  it("refuses what the local model cannot take with 400s that say why", async () => {
    const png =
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    const image = await client.chat.completions
      .create({
        model: "tiny",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is it?" },
              { type: "image_url", image_url: { url: png } },
            ],
          },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(image).toBeInstanceOf(OpenAI.BadRequestError);
    expect((image as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("unsupported_input");

    const schema = await client.chat.completions
      .create({
        model: "tiny",
        messages: hello,
        response_format: {
          type: "json_schema",
          json_schema: { name: "x", schema: { not: { type: "string" } } },
        },
      })
      .catch((caught: unknown) => caught);
    expect(schema).toBeInstanceOf(OpenAI.BadRequestError);
    expect((schema as InstanceType<typeof OpenAI.BadRequestError>).param).toMatch(/^response_format/);
  });

  it("refuses a prompt longer than the context with a 400 before streaming", async () => {
    const error = await client.chat.completions
      .create({ model: "tiny", messages: [{ role: "user", content: "word ".repeat(400) }], stream: true })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("context_length_exceeded");
  });
});

describe("OpenAIBackend against tessera serve: a full round trip through our own stack", () => {
  it("gives the same greedy text and logprobs as the in-process backend", async () => {
    const remote = new OpenAIBackend({ model: "tiny", baseUrl: `${server.url}/v1`, apiKey: "none" });
    const modelOptions = { maxNewTokens: 8, temperature: 0, logits: 3, rawLogits: 2 } as const;
    const { thunk: overHttp } = await remote.generateFromContext(
      new CBlock("Once upon a time"),
      new ChatContext(),
      {
        modelOptions,
      },
    );
    const { thunk: local } = await backend.generateFromContext(
      new CBlock("Once upon a time"),
      new ChatContext(),
      {
        modelOptions,
      },
    );
    expect(await overHttp.avalue()).toBe(await local.avalue());
    expect(overHttp.generation.usage).toEqual(local.generation.usage);
    expect(overHttp.generation.finishReasons).toEqual(["length"]);
    expect(overHttp.generation.ttfbMs).toBeGreaterThan(0);
    const remoteTrace = overHttp.generation.logits!;
    const localTrace = local.generation.logits!;
    expect(remoteTrace.source).toBe("openai-logprobs");
    expect(remoteTrace.topK).toBe(3);
    expect(remoteTrace.steps.map((step) => step.text)).toEqual(localTrace.steps.map((step) => step.text));
    remoteTrace.steps.forEach((step, index) => {
      expect(step.logprob).toBeCloseTo(localTrace.steps[index]!.logprob!, 4);
    });
    // Raw logits travel through the extension field with token ids and logits intact.
    const remoteRaw = overHttp.generation.rawLogits!;
    const localRaw = local.generation.rawLogits!;
    expect(remoteRaw).toMatchObject({ kind: "raw", source: "tessera-serve", topK: 2 });
    expect(remoteRaw.steps.map((step) => step.token)).toEqual(localRaw.steps.map((step) => step.token));
    expect(remoteRaw.steps[0]!.top[0]!.logit).toBeCloseTo(localRaw.steps[0]!.top[0]!.logit!, 4);
  });

  it("streams, offers tools and parses structured output over HTTP", async () => {
    const { z } = await import("zod");
    const remote = new OpenAIBackend({ model: "tiny", baseUrl: `${server.url}/v1` });
    const format = z.object({ ok: z.boolean() });
    const { thunk } = await remote.generateFromContext(new CBlock("Answer"), new ChatContext(), {
      format,
      modelOptions: { maxNewTokens: 40, seed: 2 },
    });
    const deltas: string[] = [];
    for await (const delta of thunk) deltas.push(delta);
    expect(deltas.join("")).toBe(thunk.value);
    expect(typeof (thunk.parsedRepr as { ok: boolean }).ok).toBe("boolean");
    expect(thunk.raw?.streamedChunks?.length).toBeGreaterThan(1);
  });
});
