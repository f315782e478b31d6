import { describe, expect, it } from "vitest";
import {
  AssistantMessage,
  chatMessageFromOpenAI,
  chatMessageToOpenAI,
  InvalidMessageError,
  MissingToolCallIdError,
  SystemMessage,
  TextChunk,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "../../src/messages/index.js";
import { captureError } from "../helpers/capture-error.js";

describe("SystemMessage and UserMessage", () => {
  it("serialise string content as a string", () => {
    expect(SystemMessage.toOpenAI(SystemMessage.create("You are a helpful assistant."))).toEqual({
      role: "system",
      content: "You are a helpful assistant.",
    });
    expect(UserMessage.toOpenAI(UserMessage.create("Can you help me to write a poem?"))).toEqual({
      role: "user",
      content: "Can you help me to write a poem?",
    });
  });

  it("serialise chunk content as a list of parts and round-trip", () => {
    const message = UserMessage.create([
      TextChunk.create("look:"),
      { type: "image_url", image_url: "https://a/b.png" },
    ]);
    const wire = UserMessage.toOpenAI(message);
    expect(wire).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look:" },
        { type: "image_url", image_url: { url: "https://a/b.png" } },
      ],
    });
    const system = SystemMessage.create([TextChunk.create("rules")]);
    expect(SystemMessage.fromOpenAI(SystemMessage.toOpenAI(system))).toEqual(system);
  });

  it("reject unknown keys on the typed schema", () => {
    const error = captureError(() => UserMessage.schema.parse({ role: "user", content: "x", name: "bob" }));
    expect(String(error)).toContain('"name"');
  });

  it("name the path of a bad part", () => {
    const error = captureError(() =>
      UserMessage.fromOpenAI({ role: "user", content: [{ type: "text", text: "a" }, { type: "image_url" }] }),
    );
    expect(InvalidMessageError.isInstance(error)).toBe(true);
    expect((error as InvalidMessageError).issues[0]?.path).toEqual(["content", 1, "image_url"]);
    expect((error as Error).message).toContain("→ at content[1].image_url");
  });
});

describe("AssistantMessage", () => {
  it("serialises plain content", () => {
    expect(AssistantMessage.toOpenAI(AssistantMessage.create("Hello, how can I help you?"))).toEqual({
      role: "assistant",
      content: "Hello, how can I help you?",
    });
  });

  it("always carries content, even on a tool-call-only turn", () => {
    const message = AssistantMessage.create({
      toolCalls: [ToolCall.create("get_weather", { city: "Oslo" }, "call_1")],
    });
    expect(AssistantMessage.toOpenAI(message)).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
      ],
    });
  });

  it("emits prefix only when set, and round-trips it", () => {
    const message = AssistantMessage.create({ content: "Once upon", prefix: true });
    expect(AssistantMessage.toOpenAI(message)).toEqual({
      role: "assistant",
      content: "Once upon",
      prefix: true,
    });
    expect(AssistantMessage.fromOpenAI(AssistantMessage.toOpenAI(message))).toEqual(message);
  });

  it("round-trips content with string tool-call arguments", () => {
    const message = AssistantMessage.create({
      content: "Checking.",
      toolCalls: [ToolCall.create("lookup", '{"q":"x"}', "call_9")],
    });
    expect(AssistantMessage.fromOpenAI(AssistantMessage.toOpenAI(message))).toEqual(message);
  });

  it("reads null content and null tool-call arguments", () => {
    expect(
      AssistantMessage.fromOpenAI({
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "ping", arguments: null } }],
      }),
    ).toEqual({
      role: "assistant",
      content: null,
      toolCalls: [{ id: "a", type: "function", function: { name: "ping", arguments: "{}" } }],
      prefix: false,
    });
  });

  it("names the path of a tool call without a name", () => {
    const error = captureError(() =>
      AssistantMessage.fromOpenAI({
        role: "assistant",
        content: "",
        tool_calls: [{ function: { arguments: "{}" } }],
      }),
    );
    expect((error as InvalidMessageError).issues[0]?.path).toEqual(["tool_calls", 0, "function", "name"]);
  });
});

describe("ToolResultMessage", () => {
  it("serialises with its tool call id and round-trips", () => {
    const message = ToolResultMessage.create('{"temperature": 72, "unit": "fahrenheit"}', "call_abc123");
    const wire = ToolResultMessage.toOpenAI(message);
    expect(wire).toEqual({
      role: "tool",
      content: '{"temperature": 72, "unit": "fahrenheit"}',
      tool_call_id: "call_abc123",
    });
    expect(ToolResultMessage.fromOpenAI(wire)).toEqual(message);
  });

  it("refuses to serialise without an id", () => {
    const error = captureError(() => ToolResultMessage.toOpenAI(ToolResultMessage.create("42")));
    expect(MissingToolCallIdError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("tool_call_id");
  });

  it("refuses to read a wire tool message without an id", () => {
    const error = captureError(() => ToolResultMessage.fromOpenAI({ role: "tool", content: "42" }));
    expect((error as InvalidMessageError).issues[0]?.path).toEqual(["tool_call_id"]);
  });
});

describe("chatMessageFromOpenAI / chatMessageToOpenAI", () => {
  it("dispatch on role", () => {
    const wire = { role: "assistant" as const, content: "hi" };
    expect(chatMessageToOpenAI(chatMessageFromOpenAI(wire))).toEqual(wire);
  });

  it("reject an unknown role naming the allowed ones", () => {
    const error = captureError(() => chatMessageFromOpenAI({ role: "bot", content: "x" }));
    expect(InvalidMessageError.isInstance(error)).toBe(true);
    expect((error as InvalidMessageError).issues[0]?.path).toEqual(["role"]);
    expect((error as Error).message).toContain("'system' | 'user' | 'assistant' | 'tool'");
  });
});
