// validateModelOptions checks only the options a caller gave when that decides (the schema's options are
// all optional without defaults): it must return what parsing the whole strict schema returns, keep a
// schema's defaults, and leave every refusal worded as the whole parse words it.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { llamaCppModelOptionsSchema } from "../../src/backends/llamacpp/llama-cpp-model-options.js";
import {
  extendModelOptionsSchema,
  InvalidModelOptionError,
  modelOptionsSchema,
  validateModelOptions,
} from "../../src/core/index.js";
import { tool } from "../../src/core/tool.js";

function wholeParse(options: unknown, schema: z.ZodObject): unknown {
  const parsed = schema.safeParse(options);
  return parsed.success ? parsed.data : { failed: parsed.error.issues.map((issue) => issue.code) };
}

function refusal(call: () => unknown): string {
  try {
    call();
    return "(accepted)";
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe("validateModelOptions' quick check", () => {
  const valid: Array<Record<string, unknown>> = [
    {},
    { maxNewTokens: 32, temperature: 0, rawPrompt: true },
    { temperature: 0.7, topK: 40, topP: 0.9, minP: 0.05, typicalP: 1, seed: 7, stopSequences: ["\n"] },
    { logitBias: { "15": -Infinity, "7": 2.5 }, logits: 5, rawLogits: "full", cutBy: true },
    { thinking: "high", grammar: 'root ::= "a"', toolChoice: "required", penaltyLastN: -1, ignoreEos: true },
    { systemPrompt: "Be brief.", contextWindow: 64, stream: false, repeatPenalty: 1.1 },
  ];

  it("returns what the whole strict parse returns for valid options", () => {
    for (const options of valid) {
      expect(validateModelOptions(options, llamaCppModelOptionsSchema)).toEqual(
        wholeParse(options, llamaCppModelOptionsSchema),
      );
    }
    expect(validateModelOptions(undefined)).toEqual({});
    expect(validateModelOptions(null)).toEqual({});
  });

  it("leaves refusals to the whole parse: typed, naming the option", () => {
    const invalid: Array<[unknown, RegExp]> = [
      [{ temperature: -1 }, /InvalidModelOptionError: .*temperature/],
      [{ temperatur: 0.5 }, /UnknownModelOptionError: .*temperatur/],
      // An unknown name wins over a bad value, as it did.
      [{ temperature: -1, bogus: 1 }, /UnknownModelOptionError: .*bogus/],
      [{ logitBias: { abc: 1 } }, /InvalidModelOptionError: .*logitBias\.abc/],
      [{ stopSequences: [""] }, /InvalidModelOptionError: .*stopSequences\.0/],
      [{ tools: ["not a tool"] }, /InvalidModelOptionError: .*tools\.0/],
      [[1, 2], /InvalidModelOptionError: .*\(options\)/],
      ["temperature", /InvalidModelOptionError: .*\(options\)/],
    ];
    for (const [options, expected] of invalid) {
      expect(
        refusal(() => validateModelOptions(options, llamaCppModelOptionsSchema)),
        JSON.stringify(options),
      ).toMatch(expected);
    }
    // An object without a prototype is parsed whole, and accepted as before.
    const bare = Object.assign(Object.create(null), { temperature: 0.5 });
    expect(validateModelOptions(bare, llamaCppModelOptionsSchema)).toEqual({ temperature: 0.5 });
  });

  it("keeps a schema's defaults and transforms by parsing it whole", () => {
    const schema = extendModelOptionsSchema({
      beams: z.number().int().default(4),
      label: z
        .string()
        .transform((text) => text.toUpperCase())
        .optional(),
    });
    expect(validateModelOptions({ temperature: 0.5 }, schema)).toEqual({ temperature: 0.5, beams: 4 });
    expect(validateModelOptions({ label: "x" }, schema)).toMatchObject({ label: "X", beams: 4 });
  });

  it("applies transforms of the options given", () => {
    const schema = extendModelOptionsSchema({
      label: z
        .string()
        .transform((text) => text.toUpperCase())
        .optional(),
    });
    expect(validateModelOptions({ label: "x" }, schema)).toEqual({ label: "X" });
  });

  it("takes tools, which are checked by class, with the common schema by default", () => {
    const echo = tool({
      name: "echo",
      description: "Echoes.",
      parameters: z.object({ text: z.string() }),
      run: ({ text }) => text,
    });
    expect(validateModelOptions({ tools: [echo] }, modelOptionsSchema).tools?.[0]).toBe(echo);
  });

  // Found by review: each of these took the quick path and answered differently from the whole parse.
  it("runs object-level checks (refine) and requires fields that are not optional", () => {
    const exclusive = extendModelOptionsSchema({}).refine(
      (options) => !(options.temperature !== undefined && options.topK !== undefined),
      "temperature and topK exclude each other",
    );
    expect(() => validateModelOptions({ temperature: 1, topK: 1 }, exclusive)).toThrow(
      InvalidModelOptionError,
    );
    const handle = extendModelOptionsSchema({ handle: z.custom<object>() });
    expect(() => validateModelOptions({ temperature: 1 }, handle)).toThrow(InvalidModelOptionError);
    const kept = extendModelOptionsSchema({
      mode: z
        .string()
        .optional()
        .default(undefined as never),
    });
    expect("mode" in validateModelOptions({}, kept)).toBe(true);
  });

  it("reads keys as zod does: a non-enumerable or inherited bad value is refused", () => {
    const hidden = Object.defineProperty({}, "temperature", { value: -5, enumerable: false });
    expect(() => validateModelOptions(hidden, llamaCppModelOptionsSchema)).toThrow(InvalidModelOptionError);
  });

  it("returns the options in the schema's order, as the whole parse does", () => {
    const options = { rawPrompt: true, temperature: 0, maxNewTokens: 32 };
    expect(Object.keys(validateModelOptions(options, llamaCppModelOptionsSchema))).toEqual(
      Object.keys(wholeParse(options, llamaCppModelOptionsSchema) as object),
    );
  });
});
