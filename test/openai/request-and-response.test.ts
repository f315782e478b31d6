// What OpenAIBackend sends and how it reads what comes back, against scenarios of the loopback server
// that record the request and answer with chosen chunks.
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { OpenAIBackend } from "../../src/backends/openai/index.js";
import { CBlock } from "../../src/core/cblock.js";
import { AudioBlock } from "../../src/core/media/audio-block.js";
import { ImageBlock } from "../../src/core/media/image-block.js";
import { Message } from "../../src/messages/components/message.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { chunk, type FaultServer, startFaultServer, streamEvents, usage } from "../helpers/fault-server.js";
import { weatherTool as weather } from "../helpers/weather-tool.js";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});

/** A scenario that streams these payloads (then [DONE]) and records each request. */
function streams(name: string, payloads: unknown[]): string {
  server.define(name, (_request, response) => streamEvents(response, payloads));
  return server.baseUrl(name);
}

describe("OpenAIBackend requests", () => {
  it("sends history, system prompt, sampling options, tools and a JSON schema", async () => {
    const baseUrl = streams("record-request", [chunk({ content: '{"ok":true}' }, { finishReason: "stop" })]);
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const context = new ChatContext().add(new Message("user", "Hi")).add(new Message("assistant", "Hello"));
    const { thunk } = await backend.generateFromContext(new CBlock("Answer"), context, {
      format: z.object({ ok: z.boolean() }),
      tools: [weather],
      modelOptions: {
        systemPrompt: "Be brief",
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        seed: 3,
        maxNewTokens: 20,
        stopSequences: ["END"],
      },
    });
    expect(await thunk.avalue()).toBe('{"ok":true}');
    expect(thunk.parsedRepr).toEqual({ ok: true });
    const body = server.hits.get("record-request")![0]!.body;
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief" },
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello" },
      { role: "user", content: "Answer" },
    ]);
    expect(body).toMatchObject({
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      seed: 3,
      max_tokens: 20,
      stop: ["END"],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(body.tools).toEqual([weather.asJsonTool()]);
    expect(body.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { schema: { type: "object", properties: { ok: { type: "boolean" } } } },
    });
  });

  it("replays reasoning only on assistant turns that called tools", async () => {
    const baseUrl = streams("record-reasoning", [chunk({ content: "Done" }, { finishReason: "stop" })]);
    const call = {
      id: "call_1",
      type: "function" as const,
      function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
    };
    const context = new ChatContext()
      .add(new Message("user", "Weather?"))
      .add(new Message("assistant", "", { thinking: "Need the tool.", toolCalls: [call] }))
      .add(new Message("tool", "sunny", { toolCallId: "call_1" }))
      .add(new Message("assistant", "It is sunny.", { thinking: "Easy." }));
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const { thunk } = await backend.generateFromContext(new CBlock("Thanks"), context);
    await thunk.avalue();
    const messages = server.hits.get("record-reasoning")![0]!.body.messages as Array<Record<string, unknown>>;
    expect(messages[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [call],
      reasoning_content: "Need the tool.",
    });
    expect(messages[2]).toEqual({ role: "tool", content: "sunny", tool_call_id: "call_1" });
    expect(messages[3]).toEqual({ role: "assistant", content: "It is sunny." });
  });

  it("sends images and audio as content parts", async () => {
    const baseUrl = streams("record-media", [chunk({ content: "a red square" }, { finishReason: "stop" })]);
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: "red" } })
      .png()
      .toBuffer();
    const image = new ImageBlock(png.toString("base64"));
    const audio = new AudioBlock(Buffer.from("RIFF0000WAVEfmt ").toString("base64"), { format: "wav" });
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const { thunk } = await backend.generateFromContext(
      new Message("user", "What is this?", { images: [image], audio: [audio] }),
      new ChatContext(),
    );
    await thunk.avalue();
    const [message] = server.hits.get("record-media")![0]!.body.messages as Array<{ content: unknown[] }>;
    expect(message!.content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${image.value}` } },
      { type: "input_audio", input_audio: { data: audio.value, format: "wav" } },
    ]);
  });

  it("asks for logprobs when logits are requested and states their kind", async () => {
    const step = (token: string, logprob: number) => ({
      token,
      logprob,
      bytes: [...Buffer.from(token)],
      top_logprobs: [
        { token, logprob, bytes: [] },
        { token: "x", logprob: logprob - 1, bytes: [] },
      ],
    });
    const baseUrl = streams("logprobs", [
      chunk({ content: "Hel" }, { logprobs: { content: [step("Hel", -0.1)] } }),
      chunk({ content: "lo" }, { logprobs: { content: [step("lo", -0.2)] }, finishReason: "stop" }),
    ]);
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const { thunk } = await backend.generateFromContext(new CBlock("Hi"), new ChatContext(), {
      modelOptions: { logits: 2 },
    });
    await thunk.avalue();
    expect(server.hits.get("logprobs")![0]!.body).toMatchObject({ logprobs: true, top_logprobs: 2 });
    const trace = thunk.generation.logits!;
    expect(trace).toMatchObject({ kind: "processed", source: "openai-logprobs", topK: 2, vocabSize: null });
    expect(trace.steps.map((entry) => [entry.text, entry.logprob])).toEqual([
      ["Hel", -0.1],
      ["lo", -0.2],
    ]);
    expect(trace.steps[1]!.top[1]).toEqual({ token: null, text: "x", logit: null, logprob: -1.2 });
  });
});

describe("OpenAIBackend responses", () => {
  it("keeps reasoning in thinking and merges tool-call fragments", async () => {
    const baseUrl = streams("tools-and-reasoning", [
      chunk({ role: "assistant", reasoning_content: "The user wants " }),
      chunk({ reasoning_content: "weather." }),
      chunk({
        tool_calls: [
          { index: 0, id: "call_9", type: "function", function: { name: "get_weather", arguments: '{"ci' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }),
      chunk({}, { finishReason: "tool_calls" }),
      { ...chunk({}), choices: [], usage },
    ]);
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const { thunk } = await backend.generateFromContext(new CBlock("Weather in Oslo?"), new ChatContext(), {
      tools: [weather],
    });
    expect(await thunk.avalue()).toBe("");
    expect(thunk.thinking).toBe("The user wants weather.");
    expect(thunk.generation.finishReasons).toEqual(["tool_calls"]);
    expect(thunk.toolCalls).toHaveLength(1);
    const call = thunk.toolCalls![0]!;
    expect([call.name, call.args, call.toolCallId]).toEqual(["get_weather", { city: "Oslo" }, "call_9"]);
    expect(await call.callFunc()).toBe("sunny in Oslo");
  });

  it("never binds a call to a tool that was not offered", async () => {
    const baseUrl = streams("unknown-tool", [
      chunk({
        tool_calls: [{ index: 0, id: "c", type: "function", function: { name: "rm_rf", arguments: "{}" } }],
      }),
      chunk({}, { finishReason: "tool_calls" }),
    ]);
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on("warning", onWarning);
    const { thunk } = await backend.generateFromContext(new CBlock("Hi"), new ChatContext(), {
      tools: [weather],
    });
    await thunk.avalue();
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", onWarning);
    expect(thunk.toolCalls).toBeNull();
    expect(warnings.join(" ")).toContain("rm_rf");
  });

  it("records a structured output that fails its schema as a soft error", async () => {
    const baseUrl = streams("bad-json-output", [
      chunk({ content: '{"ok":"yes"}' }, { finishReason: "stop" }),
    ]);
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const { thunk } = await backend.generateFromContext(new CBlock("Hi"), new ChatContext(), {
      format: z.object({ ok: z.boolean() }),
    });
    expect(await thunk.avalue()).toBe('{"ok":"yes"}');
    expect(thunk.parsedRepr).toBeNull();
    expect(thunk.error?.name).toBe("ComponentParseError");
  });

  it("refuses to start without a model name or with a non-http base URL", () => {
    const saved = process.env.OPENAI_MODEL;
    delete process.env.OPENAI_MODEL;
    try {
      expect(() => new OpenAIBackend({ baseUrl: "http://127.0.0.1:1/v1" })).toThrow(/OPENAI_MODEL/);
      expect(() => new OpenAIBackend({ model: "m", baseUrl: "file:///etc/passwd" })).toThrow(/http/);
    } finally {
      if (saved !== undefined) process.env.OPENAI_MODEL = saved;
    }
  });
});
