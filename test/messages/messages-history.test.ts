import { describe, expect, it } from "vitest";
import {
  AssistantMessage,
  ImageURLChunk,
  InvalidMessageError,
  MessagesHistory,
  SystemMessage,
  TextChunk,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "../../src/messages/index.js";

const conversation = new MessagesHistory([
  SystemMessage.create("You are a weather bot.\n\nBe brief."),
  UserMessage.create([TextChunk.create("Weather in Oslo?"), ImageURLChunk.create("https://a/map.png")]),
  AssistantMessage.create({ toolCalls: [ToolCall.create("get_weather", { city: "Oslo" }, "call_1")] }),
  ToolResultMessage.create('{"temp": 3}\n\n{"wind": 5}', "call_1"),
  AssistantMessage.create("3 degrees and windy."),
]);

describe("MessagesHistory.toOpenAI", () => {
  it("drops system messages with empty content and keeps the rest in order", () => {
    const history = new MessagesHistory([SystemMessage.create(""), UserMessage.create("Hello!")]);
    expect(history.toOpenAI()).toEqual([{ role: "user", content: "Hello!" }]);
  });

  it("round-trips through fromOpenAI", () => {
    const wire = conversation.toOpenAI();
    expect(MessagesHistory.fromOpenAI(wire).toOpenAI()).toEqual(wire);
  });
});

describe("MessagesHistory.fromOpenAI", () => {
  it("builds typed messages", () => {
    const history = MessagesHistory.fromOpenAI([
      { role: "user", content: "Hello!" },
      { role: "assistant", content: "Hi there!" },
    ]);
    expect(history.messages).toEqual([
      { role: "user", content: "Hello!" },
      { role: "assistant", content: "Hi there!", toolCalls: null, prefix: false },
    ]);
  });

  it("rejects an unknown role with the index and the allowed roles", () => {
    try {
      MessagesHistory.fromOpenAI([
        { role: "user", content: "x" },
        { role: "narrator", content: "y" },
      ]);
      expect.unreachable();
    } catch (error) {
      expect(InvalidMessageError.isInstance(error)).toBe(true);
      expect((error as InvalidMessageError).issues[0]?.path).toEqual([1, "role"]);
      expect((error as Error).message).toContain("→ at [1].role");
    }
  });

  it("rejects a non-array", () => {
    expect(() => MessagesHistory.fromOpenAI({ messages: [] })).toThrow(/expected array/);
  });
});

describe("makeInstructionPrompt", () => {
  it("renders instruction, messages, tool calls, tool results and the last turn", () => {
    expect(conversation.makeInstructionPrompt()).toBe(
      [
        "# Instruction",
        "",
        "  You are a weather bot.",
        "",
        "  Be brief.",
        "",
        "",
        "# Messages",
        "",
        "## User",
        "  Weather in Oslo?",
        "  [IMAGE URL: https://a/map.png]",
        "",
        "## Assistant",
        '  <get_weather><arguments>{"city":"Oslo"}</arguments></get_weather>',
        "",
        "## Tool",
        "  Tool Result (ID: call_1):",
        '    {"temp": 3}',
        "",
        '    {"wind": 5}',
        "",
        "## Assistant",
        "  3 degrees and windy.",
        "",
        "",
        "Last Message from Assistant: 3 degrees and windy.",
      ].join("\n"),
    );
  });

  it("uses a placeholder without a system prompt, a custom section name, and no last-turn line", () => {
    const history = new MessagesHistory([UserMessage.create("Hi")]);
    expect(history.makeInstructionPrompt("Conversation", false)).toBe(
      "# Instruction\n\n  (No system prompt provided)\n\n\n# Conversation\n\n## User\n  Hi",
    );
  });

  it("previews a tool-call-only last turn as [tool calls]", () => {
    const history = new MessagesHistory([
      AssistantMessage.create({ toolCalls: [ToolCall.create("ping", "{}")] }),
    ]);
    expect(history.makeInstructionPrompt()).toBe(
      "# Instruction\n\n  (No system prompt provided)\n\n\n# Messages\n\n## Assistant\n" +
        "  <ping><arguments>{}</arguments></ping>\n\n\nLast Message from Assistant: [tool calls]",
    );
  });

  it("joins the text chunks of a system prompt and previews a chunked last turn", () => {
    const history = new MessagesHistory([
      SystemMessage.create([
        TextChunk.create("Be "),
        ImageURLChunk.create("https://a/x.png"),
        TextChunk.create("kind."),
      ]),
      UserMessage.create([
        TextChunk.create("Look:"),
        ImageURLChunk.create({ url: "https://a/y.png", detail: "low" }),
      ]),
    ]);
    expect(history.makeInstructionPrompt()).toBe(
      "# Instruction\n\n  Be kind.\n\n\n# Messages\n\n## User\n  Look:\n  [IMAGE URL: https://a/y.png]\n\n\n" +
        "Last Message from User: Look:\n[IMAGE URL: https://a/y.png]",
    );
  });

  it("has only the instruction when there are only system messages", () => {
    const history = new MessagesHistory([SystemMessage.create("  Rules.  ")]);
    expect(history.makeInstructionPrompt()).toBe("# Instruction\n\n  Rules.");
  });
});

describe("new MessagesHistory", () => {
  it("validates its messages strictly", () => {
    expect(() => new MessagesHistory([{ role: "user", content: "x", extra: true } as never])).toThrow(
      /Unrecognized key: "extra"/,
    );
  });
});
