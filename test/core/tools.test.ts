import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  AbstractTool,
  ModelToolCall,
  NoSuchToolError,
  ToolArgumentsError,
  tool,
} from "../../src/core/index.js";

const calls: unknown[] = [];
const weather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: z.object({ city: z.string().describe("City name"), days: z.number().int().min(1).optional() }),
  run: ({ city, days }) => {
    calls.push({ city, days });
    return `sunny in ${city}`;
  },
});

describe("tool()", () => {
  it("describes itself as an OpenAI function generated from the zod schema", () => {
    expect(weather.asJsonTool()).toEqual({
      type: "function",
      function: {
        name: "get_weather",
        description: "Current weather for a city",
        parameters: {
          type: "object",
          properties: {
            city: { type: "string", description: "City name" },
            days: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
          },
          required: ["city"],
          additionalProperties: false,
        },
      },
    });
    expect(AbstractTool.isInstance(weather)).toBe(true);
  });
});

describe("ModelToolCall.callFunc", () => {
  it("validates then runs the tool", async () => {
    const call = new ModelToolCall("get_weather", weather, { city: "Oslo" }, "call_1");
    expect(await call.callFunc()).toBe("sunny in Oslo");
    expect(call.toolCallId).toBe("call_1");
    expect(new ModelToolCall("get_weather", weather, "{}").toolCallId).toBeNull();
  });

  it("accepts arguments as a JSON string", async () => {
    expect(await new ModelToolCall("get_weather", weather, '{"city":"Lima","days":2}').callFunc()).toBe(
      "sunny in Lima",
    );
  });

  it("never runs the tool on arguments that fail the schema, and names the field", async () => {
    calls.length = 0;
    const call = new ModelToolCall("get_weather", weather, { city: 5, days: 0 });
    const error = await call.callFunc().catch((caught: unknown) => caught);
    expect(ToolArgumentsError.isInstance(error)).toBe(true);
    expect((error as ToolArgumentsError).fields).toEqual(["city", "days"]);
    expect((error as Error).message).toMatch(
      /^Arguments for tool "get_weather" are invalid, so it was not run: city: /,
    );
    expect(calls).toEqual([]);
  });

  it("reports truncated JSON arguments without running the tool", async () => {
    calls.length = 0;
    const error = await new ModelToolCall("get_weather", weather, '{"city": "Par')
      .callFunc()
      .catch((caught) => caught);
    expect(ToolArgumentsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("arguments are not valid JSON");
    expect(calls).toEqual([]);
  });
});

describe("NoSuchToolError", () => {
  it("lists the tools that exist", () => {
    expect(new NoSuchToolError("get_wether", ["get_weather", "search"]).message).toBe(
      'The model called a tool named "get_wether", which does not exist. Available tools: get_weather, search.',
    );
    expect(new NoSuchToolError("x", []).message).toContain("No tools were offered");
  });
});
