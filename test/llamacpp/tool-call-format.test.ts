import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  parseToolCalls,
  toolCallGrammar,
  toolCallInstructions,
} from "../../src/backends/llamacpp/tool-call-format.js";
import { ModelToolCall } from "../../src/core/model-tool-call.js";
import { tool } from "../../src/core/tool.js";

const weather = tool({
  name: "get_weather",
  description: "The weather in a city",
  parameters: z.object({ city: z.enum(["Paris", "Oslo"]), celsius: z.boolean() }),
  run: ({ city, celsius }) => `${city}: ${celsius ? "21 C" : "70 F"}`,
});
const tools = { get_weather: weather };

describe("the tool-call format", () => {
  test("parses one call into a ModelToolCall that validates and runs", async () => {
    const parsed = parseToolCalls(
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "celsius": true}}</tool_call>',
      tools,
    );
    expect(parsed.rejected).toEqual([]);
    expect(parsed.calls).toHaveLength(1);
    const call = parsed.calls[0]!;
    expect(call).toBeInstanceOf(ModelToolCall);
    expect(call.name).toBe("get_weather");
    expect(call.args).toEqual({ city: "Oslo", celsius: true });
    expect(await call.callFunc()).toBe("Oslo: 21 C");
  });

  test("parses several calls, one per line", () => {
    const answer =
      '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo","celsius":true}}</tool_call>\n' +
      '<tool_call>{"name":"get_weather","arguments":{"city":"Paris","celsius":false}}</tool_call>';
    expect(parseToolCalls(answer, tools).calls.map((call) => call.args)).toEqual([
      { city: "Oslo", celsius: true },
      { city: "Paris", celsius: false },
    ]);
  });

  test("plain text is no call", () => {
    expect(parseToolCalls("It is sunny.", tools)).toEqual({ text: "It is sunny.", calls: [], rejected: [] });
  });

  test("a call cut off by the token limit, an unknown tool and bad JSON are rejected, never bound", () => {
    expect(parseToolCalls('<tool_call>{"name": "get_weather", "argu', tools).rejected[0]!.reason).toContain(
      "cut off",
    );
    expect(
      parseToolCalls('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>', tools).rejected[0]!.reason,
    ).toContain("no tool named");
    const badJson = parseToolCalls("<tool_call>{nope}</tool_call>", tools);
    expect(badJson.calls).toEqual([]);
    expect(badJson.rejected[0]!.reason).toContain("not valid JSON");
  });

  test("the grammar names every tool and allows text only in auto mode", async () => {
    const jsonTools = [weather.asJsonTool()];
    const auto = await toolCallGrammar(jsonTools, "auto");
    const required = await toolCallGrammar(jsonTools, "required");
    expect(auto).toContain("root ::= tessera-tool-calls | tessera-free-text");
    expect(required).toContain("root ::= tessera-tool-calls\n");
    expect(required).toContain('\\"get_weather\\"');
    expect(required).not.toMatch(/^root ::= tessera-tool-calls \| /m);
    expect(toolCallInstructions(jsonTools, "required")).toContain("<tool_call>");
  });
});
