// Grammar-constrained JSON from zod schemas and tool calls, end to end on the tiny model.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { z } from "zod";
import { UnsupportedJsonSchemaError } from "../../src/backends/llamacpp/errors/unsupported-json-schema-error.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import { ModelToolCall } from "../../src/core/model-tool-call.js";
import { tool } from "../../src/core/tool.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";

let backend: LlamaCppBackend;

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 2, contextSize: 1024 });
});
afterAll(() => backend.dispose());

// Strings are bounded: a random model rarely chooses to close a string on its own.
const answerSchema = z.object({
  verdict: z.enum(["yes", "no", "maybe"]),
  confident: z.boolean(),
  score: z.number().int(),
  tags: z.array(z.enum(["red", "green", "blue"])).max(3),
  note: z.string().max(6),
  extra: z.union([z.literal("none"), z.object({ level: z.number() })]),
  optional: z.boolean().optional(),
});

describe("structured output from a zod format", () => {
  test("always parses against the schema; the value is the JSON text and parsedRepr the object", async () => {
    for (const seed of [1, 2, 3, 4]) {
      const { thunk } = await backend.generateFromContext(new CBlock("Judge this"), new ChatContext(), {
        format: answerSchema,
        modelOptions: { seed, temperature: 1, maxNewTokens: 200 },
      });
      const value = await thunk.avalue();
      expect(thunk.error, `seed ${seed}: ${value}`).toBeNull();
      expect(thunk.generation.finishReasons).toEqual(["stop"]);
      expect(answerSchema.parse(JSON.parse(value))).toEqual(thunk.parsedRepr);
      expect(thunk.parsedRepr).toEqual(answerSchema.parse(thunk.parsedRepr));
    }
  });

  test("a schema the grammar cannot express is refused before any work", async () => {
    const error = await backend
      .generateFromContext(new CBlock("x"), new ChatContext(), {
        format: z.object({ anything: z.any() }),
      })
      .catch((caught: unknown) => caught);
    expect(UnsupportedJsonSchemaError.isInstance(error)).toBe(true);
    expect((error as UnsupportedJsonSchemaError).schemaPath).toBe("#/properties/anything");
  });

  test("JSON cut off by maxNewTokens is a soft StructuredOutputError with the text kept", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Judge"), new ChatContext(), {
      format: answerSchema,
      modelOptions: { seed: 1, maxNewTokens: 3 },
    });
    const value = await thunk.avalue();
    expect(value.length).toBeGreaterThan(0);
    expect(thunk.parsedRepr).toBeNull();
    expect(thunk.error?.name).toBe("StructuredOutputError");
    expect(thunk.generation.finishReasons).toEqual(["length"]);
  });
});

describe("tool calls", () => {
  const weather = tool({
    name: "get_weather",
    description: "Current weather in a city",
    parameters: z.object({ city: z.enum(["Paris", "Oslo", "Lima"]), unit: z.enum(["C", "F"]) }),
    run: ({ city, unit }) => `${city}: 20 ${unit}`,
  });
  const time = tool({
    name: "get_time",
    description: "Current time",
    parameters: z.object({ utc: z.boolean() }),
    run: ({ utc }) => (utc ? "12:00Z" : "13:00"),
  });

  test("with toolChoice required, calls come back as ModelToolCalls that validate and run", async () => {
    for (const seed of [1, 2, 3]) {
      const { thunk } = await backend.generateFromContext(
        new CBlock("What is the weather?"),
        new ChatContext(),
        {
          tools: [weather, time],
          modelOptions: { seed, temperature: 1, maxNewTokens: 300, toolChoice: "required" } as never,
        },
      );
      const value = await thunk.avalue();
      // The <tool_call> markup ends inside the backend: a calls-only answer has no text.
      expect(value).toBe("");
      expect(thunk.toolCalls?.length).toBeGreaterThan(0);
      for (const call of thunk.toolCalls!) {
        expect(call).toBeInstanceOf(ModelToolCall);
        expect(["get_weather", "get_time"]).toContain(call.name);
        expect(await call.callFunc()).toMatch(/20 [CF]|12:00Z|13:00/);
      }
    }
  });

  test("with toolChoice auto (the default) the answer is text or calls, and only calls become toolCalls", async () => {
    for (const seed of [1, 2]) {
      const { thunk } = await backend.generateFromContext(new CBlock("Hello"), new ChatContext(), {
        tools: [time],
        modelOptions: { seed, maxNewTokens: 24 },
      });
      const value = await thunk.avalue();
      // Calls arrive as tool calls (their markup never as text); a text answer cannot start with "<".
      if (thunk.toolCalls !== null) {
        expect(thunk.toolCalls[0]?.name).toBe("get_time");
        expect(value).toBe("");
      } else expect(value.startsWith("<")).toBe(false);
      expect(thunk.generateLog!.extra.grammar).toContain("root ::= tessera-tool-calls | tessera-free-text");
    }
  });

  test("the prompt describes the tools and the call format", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Time?"), new ChatContext(), {
      tools: [time],
      modelOptions: { seed: 1, maxNewTokens: 40, toolChoice: "required" } as never,
    });
    await thunk.avalue();
    const prompt = thunk.generateLog!.prompt as string;
    expect(prompt).toContain('"name":"get_time"');
    expect(prompt).toContain("<tool_call>");
    expect(thunk.generateLog!.extra.grammar).toContain("tessera-tool-call");
  });

  test("toolChoice none offers no tools and no grammar", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Time?"), new ChatContext(), {
      tools: [time],
      modelOptions: { seed: 1, maxNewTokens: 4, toolChoice: "none" } as never,
    });
    await thunk.avalue();
    expect(thunk.toolCalls).toBeNull();
    expect(thunk.generateLog!.extra.grammar).toBeUndefined();
  });
});
