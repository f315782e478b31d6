import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AbstractTool } from "../../src/core/abstract-tool.js";
import { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import { ModelToolCall } from "../../src/core/model-tool-call.js";
import { tool } from "../../src/core/tool.js";
import {
  buildCompletionUsage,
  buildToolCalls,
  chatCompletionDeltaMerge,
  extractModelToolRequests,
  hasToolCalls,
} from "../../src/messages/index.js";
import { weatherTool as getWeather } from "../helpers/weather-tool.js";

const ping = tool({ name: "ping", description: "Ping", parameters: z.object({}), run: () => "pong" });
const tools = { get_weather: getWeather, ping };
// core's ModelToolCall takes AbstractTool<never, …>, which a ZodTool does not satisfy in the type system.
const asTool = (value: unknown) => value as AbstractTool<never, unknown>;

describe("chatCompletionDeltaMerge", () => {
  it("gives an empty choice for no chunks", () => {
    expect(chatCompletionDeltaMerge([])).toEqual({
      finish_reason: null,
      stop_reason: null,
      index: 0,
      logprobs: null,
      message: { content: "", reasoning_content: "", role: null, tool_calls: [] },
    });
  });

  it("merges content, reasoning, role and the top-level fields", () => {
    const merged = chatCompletionDeltaMerge([
      { index: 1, delta: { role: "assistant", reasoning_content: "Let me " } },
      {
        index: 1,
        delta: { reasoning_content: "think.", content: "Hel" },
        logprobs: { content: [{ token: "Hel" }] },
      },
      { index: 1, delta: { role: "ignored", content: "lo" }, logprobs: { content: [{ token: "lo" }] } },
      { index: 1, delta: {}, finish_reason: "stop", stop_reason: 128009 },
    ]);
    expect(merged).toEqual({
      finish_reason: "stop",
      stop_reason: 128009,
      index: 1,
      logprobs: { content: [{ token: "Hel" }, { token: "lo" }], refusal: [] },
      message: { content: "Hello", reasoning_content: "Let me think.", role: "assistant", tool_calls: [] },
    });
  });

  it("joins tool-call fragments by index", () => {
    const merged = chatCompletionDeltaMerge([
      {
        delta: {
          tool_calls: [
            { index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: null } },
          ],
        },
      },
      {
        delta: {
          tool_calls: [
            { index: 1, id: "call_b", type: "function", function: { name: "ping", arguments: "{}" } },
          ],
        },
      },
      { delta: { tool_calls: [{ index: 0, function: { name: null, arguments: '{"city": "' } }] } },
      { delta: { tool_calls: [{ index: 0, function: { name: null, arguments: 'Dallas"}' } }] } },
    ]);
    expect(merged.message.tool_calls).toEqual([
      { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city": "Dallas"}' } },
      { id: "call_b", type: "function", function: { name: "ping", arguments: "{}" } },
    ]);
  });

  it("keeps every fragment separate when forced", () => {
    const chunks = [
      { delta: { tool_calls: [{ index: 0, id: "1", function: { name: "ping", arguments: "{}" } }] } },
      { delta: { tool_calls: [{ index: 0, id: "2", function: { name: "ping", arguments: "{}" } }] } },
    ];
    expect(chatCompletionDeltaMerge(chunks).message.tool_calls).toEqual([
      { id: "2", function: { name: "pingping", arguments: "{}{}" } },
    ]);
    expect(chatCompletionDeltaMerge(chunks, true).message.tool_calls).toEqual([
      { id: "1", function: { name: "ping", arguments: "{}" } },
      { id: "2", function: { name: "ping", arguments: "{}" } },
    ]);
  });
});

describe("extractModelToolRequests", () => {
  it("returns null, not an empty list, when there are no calls", () => {
    expect(extractModelToolRequests(tools, { message: {} })).toBeNull();
    expect(extractModelToolRequests(tools, { message: { tool_calls: [] } })).toBeNull();
  });

  it("binds calls to tools in order, keeping ids, skipping unknown tools and bad JSON with a warning", () => {
    const warnings: string[] = [];
    const calls = extractModelToolRequests(
      tools,
      {
        message: {
          tool_calls: [
            { id: "call_1", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } },
            { id: "call_2", function: { name: "launch_rockets", arguments: "{}" } },
            { id: "call_3", function: { name: "get_weather", arguments: '{"city": "Os' } },
            { function: { name: "ping", arguments: null } },
          ],
        },
      },
      { warn: (message) => warnings.push(message) },
    );
    expect(calls?.map((call) => [call.name, call.args, call.toolCallId, call.func])).toEqual([
      ["get_weather", { city: "Oslo" }, "call_1", getWeather],
      ["ping", {}, null, ping],
    ]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("launch_rockets");
    expect(warnings[0]).toContain("get_weather, ping");
    expect(warnings[1]).toContain('malformed JSON arguments for tool "get_weather"');
  });

  it("gives calls that run the tool", async () => {
    const calls = extractModelToolRequests(tools, {
      message: { tool_calls: [{ id: "c", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }] },
    });
    expect(await calls![0]!.callFunc()).toBe("sunny in Rome");
  });
});

describe("tool calls and usage of an output", () => {
  it("hasToolCalls is false without calls and true with them", () => {
    expect(hasToolCalls(new ModelOutputThunk("x"))).toBe(false);
    expect(hasToolCalls(new ModelOutputThunk("x", { toolCalls: [] }))).toBe(false);
    expect(
      hasToolCalls(new ModelOutputThunk("x", { toolCalls: [new ModelToolCall("ping", asTool(ping), {})] })),
    ).toBe(true);
  });

  it("buildToolCalls reuses the provider id, else makes call_ + 24 hex, and serialises arguments", () => {
    const output = new ModelOutputThunk("", {
      toolCalls: [
        new ModelToolCall("get_weather", asTool(getWeather), { city: "Oslo" }, "call_xyz"),
        new ModelToolCall("ping", asTool(ping), {}),
      ],
    });
    const built = buildToolCalls(output)!;
    expect(built[0]).toEqual({
      id: "call_xyz",
      type: "function",
      function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
    });
    expect(built[1]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(built[1]!.function).toEqual({ name: "ping", arguments: "{}" });
    expect(buildToolCalls(output)![1]!.id).toBe(built[1]!.id);
    expect(buildToolCalls(new ModelOutputThunk("x"))).toBeNull();
  });

  it("buildCompletionUsage converts usage to the wire shape, or null", () => {
    const output = new ModelOutputThunk("x");
    expect(buildCompletionUsage(output)).toBeNull();
    output.generation.usage = { promptTokens: 12, completionTokens: 5, totalTokens: 17 };
    expect(buildCompletionUsage(output)).toEqual({
      prompt_tokens: 12,
      completion_tokens: 5,
      total_tokens: 17,
    });
  });
});
