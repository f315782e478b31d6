import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AbstractTool } from "../../src/core/abstract-tool.js";
import { AudioBlock } from "../../src/core/media/audio-block.js";
import { AudioUrlBlock } from "../../src/core/media/audio-url-block.js";
import { ImageBlock } from "../../src/core/media/image-block.js";
import { ImageUrlBlock } from "../../src/core/media/image-url-block.js";
import { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import { ModelToolCall } from "../../src/core/model-tool-call.js";
import { tool } from "../../src/core/tool.js";
import { TemplateFormatter } from "../../src/formatting/index.js";
import {
  AudioUrlNotSupportedError,
  Document,
  InvalidMessageError,
  Message,
  messagesToDocs,
  messageToOpenAIMessage,
  shouldReplayReasoning,
  ToolMessage,
} from "../../src/messages/index.js";

const weather = tool({
  name: "get_weather",
  description: "Weather for a city",
  parameters: z.object({ city: z.string() }),
  run: ({ city }) => ({ city, celsius: 21 }),
});
const weatherCall = new ModelToolCall(
  "get_weather",
  weather as unknown as AbstractTool<never, unknown>,
  { city: "Oslo" },
  "call_7",
);
const assistantToolCall = {
  id: "call_7",
  type: "function" as const,
  function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
};

let pngBase64: string;
beforeAll(async () => {
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: "red" } })
    .png()
    .toBuffer();
  pngBase64 = png.toString("base64");
});

describe("Message", () => {
  it("validates its role", () => {
    try {
      new Message("narrator" as never, "x");
      expect.unreachable();
    } catch (error) {
      expect(InvalidMessageError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("expected one of");
    }
  });

  it("keeps content, documents (strings coerced), tool data and thinking", () => {
    const message = new Message("assistant", "Hi", {
      documents: ["plain", new Document("t", "T", "2")],
      toolCalls: [assistantToolCall],
      thinking: "hmm",
    });
    expect(message.documents?.map((document) => [document.text, document.title, document.docId])).toEqual([
      ["plain", null, null],
      ["t", "T", "2"],
    ]);
    expect(message.toolCalls).toEqual([assistantToolCall]);
    expect(message.thinking).toBe("hmm");
    expect(message.images).toBeNull();
    const representation = message.formatForLlm();
    expect(representation.role).toBe("assistant");
    expect(representation.templateOrder).toEqual(["*", "Message"]);
  });

  it("parses model output into an assistant message carrying reasoning and tool calls", () => {
    const output = new ModelOutputThunk<Message>("Done.", { thinking: "why", toolCalls: [weatherCall] });
    const parsed = new Message("user", "q").parse(output);
    expect([parsed.role, parsed.content, parsed.thinking, parsed.toolCalls]).toEqual([
      "assistant",
      "Done.",
      "why",
      [assistantToolCall],
    ]);
  });
});

describe("ToolMessage", () => {
  it("is a tool turn built from the call and its output", async () => {
    const output = await weatherCall.callFunc();
    const message = new ToolMessage(weatherCall, output);
    expect([message.role, message.content, message.toolCallId, message.name]).toEqual([
      "tool",
      '{"city":"Oslo","celsius":21}',
      "call_7",
      "get_weather",
    ]);
    expect(message.arguments).toEqual({ city: "Oslo" });
    expect(message.toolOutput).toEqual({ city: "Oslo", celsius: 21 });
    expect(message.formatForLlm().args.name).toBe("get_weather");
    expect(message.formatForLlm().toolName).toBe("get_weather");
  });
});

describe("messageToOpenAIMessage", () => {
  it("sends plain string content", () => {
    expect(messageToOpenAIMessage(new Message("user", "Hello"))).toEqual({ role: "user", content: "Hello" });
  });

  it("sends parts when images or audio are attached, without doubling the data URI prefix", () => {
    const message = new Message("user", "What is this?", {
      images: [
        new ImageBlock(`data:image/png;base64,${pngBase64}`),
        new ImageUrlBlock("https://example.com/a.png"),
      ],
      audio: [new AudioBlock(`data:audio/wav;base64,${Buffer.from("RIFF....WAVE").toString("base64")}`)],
    });
    expect(messageToOpenAIMessage(message)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${pngBase64}` } },
        { type: "image_url", image_url: { url: "https://example.com/a.png" } },
        {
          type: "input_audio",
          input_audio: { data: Buffer.from("RIFF....WAVE").toString("base64"), format: "wav" },
        },
      ],
    });
  });

  it("refuses audio by URL with a clear error", () => {
    const message = new Message("user", "Listen", {
      audio: [new AudioUrlBlock("https://example.com/a.wav")],
    });
    try {
      messageToOpenAIMessage(message);
      expect.unreachable();
    } catch (error) {
      expect(AudioUrlNotSupportedError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("https://example.com/a.wav");
    }
  });

  it("gives a tool-only assistant turn null content plus tool_calls, and keeps content when present", () => {
    expect(messageToOpenAIMessage(new Message("assistant", "", { toolCalls: [assistantToolCall] }))).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [assistantToolCall],
    });
    expect(
      messageToOpenAIMessage(new Message("assistant", "Checking", { toolCalls: [assistantToolCall] })),
    ).toEqual({ role: "assistant", content: "Checking", tool_calls: [assistantToolCall] });
  });

  it("carries tool_call_id on tool results", () => {
    expect(messageToOpenAIMessage(new ToolMessage(weatherCall, "sunny"))).toEqual({
      role: "tool",
      content: "sunny",
      tool_call_id: "call_7",
    });
  });

  it("replays reasoning only when asked", () => {
    const message = new Message("assistant", "", {
      toolCalls: [assistantToolCall],
      thinking: "need weather",
    });
    expect(messageToOpenAIMessage(message).reasoning_content).toBeUndefined();
    expect(messageToOpenAIMessage(message, null, true).reasoning_content).toBe("need weather");
  });

  it("renders documents through a formatter", () => {
    const message = new Message("user", "Answer:", { documents: [new Document("Paris", "Capital", "1")] });
    expect(messageToOpenAIMessage(message, new TemplateFormatter("m"))).toEqual({
      role: "user",
      content: "Answer:\n\n[Document 1]\nCapital: Paris",
    });
  });
});

describe("shouldReplayReasoning", () => {
  it("replays only assistant turns with reasoning that issued tool calls", () => {
    const messages = [
      new Message("user", "q", { thinking: "user thoughts?" }),
      new Message("assistant", "", { toolCalls: [assistantToolCall], thinking: "need weather" }),
      new ToolMessage(weatherCall, "sunny"),
      new Message("assistant", "It is sunny.", { thinking: "easy" }),
      new Message("assistant", "", { toolCalls: [assistantToolCall] }),
    ];
    expect(shouldReplayReasoning(messages, "openai")).toEqual([false, true, false, false, false]);
  });
});

describe("messagesToDocs", () => {
  it("collects every document with optional title and doc_id", () => {
    const messages = [
      new Message("user", "a", { documents: [new Document("one", "T", "d1"), "two"] }),
      new Message("user", "b"),
      new Message("user", "c", { documents: [new Document("three", null, "d3")] }),
    ];
    expect(messagesToDocs(messages)).toEqual([
      { text: "one", title: "T", doc_id: "d1" },
      { text: "two" },
      { text: "three", doc_id: "d3" },
    ]);
  });
});
