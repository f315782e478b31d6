import { describe, expect, test } from "vitest";
import { z } from "zod";
import { UnsupportedJsonSchemaError } from "../../src/backends/llamacpp/errors/unsupported-json-schema-error.js";
import { grammarForJsonSchema, jsonSchemaOfZod } from "../../src/backends/llamacpp/json-schema-grammar.js";
import { normalizeJsonSchema } from "../../src/backends/llamacpp/json-schema-normalizer.js";

function refusal(schema: unknown): UnsupportedJsonSchemaError {
  try {
    normalizeJsonSchema(schema);
  } catch (error) {
    if (UnsupportedJsonSchemaError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the schema to be refused");
}

describe("JSON schema normalization", () => {
  test("maps zod's output onto the grammar subset", () => {
    const schema = jsonSchemaOfZod(
      z.object({
        name: z.string().max(5),
        kind: z.literal("x"),
        colour: z.enum(["red", "blue"]),
        maybe: z.string().nullable(),
        pair: z.tuple([z.string(), z.number().min(0)]),
      }),
    );
    expect(normalizeJsonSchema(schema)).toEqual({
      type: "object",
      properties: {
        name: { type: "string", maxLength: 5 },
        kind: { const: "x" },
        colour: { enum: ["red", "blue"] },
        maybe: { type: ["string", "null"] },
        pair: {
          type: "array",
          prefixItems: [{ type: "string" }, { type: "number" }],
          minItems: 2,
          maxItems: 2,
        },
      },
      required: ["name", "kind", "colour", "maybe", "pair"],
      additionalProperties: false,
    });
  });

  test("keeps $defs and references into them (recursive schemas)", () => {
    type Tree = { value: number; children: Tree[] };
    const tree: z.ZodType<Tree> = z.object({
      value: z.number(),
      get children() {
        return z.array(tree).max(2);
      },
    });
    const normalized = normalizeJsonSchema(jsonSchemaOfZod(z.object({ root: tree })));
    expect(JSON.stringify(normalized)).toContain('"$ref":"#/$defs/');
    expect(normalized.$defs).toBeDefined();
    return expect(grammarForJsonSchema(jsonSchemaOfZod(z.object({ root: tree })))).resolves.toContain(
      "root ::=",
    );
  });

  test("refuses what a grammar cannot enforce, naming the place and the keyword", () => {
    expect(refusal({ type: "object", properties: { a: {} } })).toMatchObject({
      schemaPath: "#/properties/a",
      keyword: "type",
    });
    expect(refusal({ allOf: [{ type: "string" }] }).keyword).toBe("allOf");
    expect(refusal({ not: { type: "string" } }).keyword).toBe("not");
    expect(refusal({ type: "object", patternProperties: {} }).keyword).toBe("patternProperties");
    expect(refusal({ $ref: "https://example.com/schema" }).keyword).toBe("$ref");
    expect(refusal({ $ref: "#/$defs/missing" }).keyword).toBe("$ref");
    expect(refusal({ enum: [{ nested: true }] }).keyword).toBe("enum");
    expect(refusal("string").keyword).toBe("(root)");
  });

  test("refuses absurd nesting instead of recursing without bound", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let depth = 0; depth < 100; depth++) schema = { type: "array", items: schema };
    expect(refusal(schema).keyword).toBe("(nesting)");
  });
});

describe("grammarForJsonSchema", () => {
  test("ends right after the JSON value and bounds numbers to finite, safe values", async () => {
    const grammar = await grammarForJsonSchema(
      jsonSchemaOfZod(z.object({ count: z.number().int(), ratio: z.number() })),
    );
    expect(grammar).toMatch(/^root ::= "\{"/);
    expect(grammar).not.toContain('"\\n\\n\\n\\n"');
    expect(grammar).toContain('integer-number-rule ::= "-"? ("0" | [1-9] [0-9]{0,14})');
    expect(grammar).toContain("([eE] [-+]? [0-9]{1,2})?");
  });

  test("can name its root rule, to be embedded in a larger grammar", async () => {
    const grammar = await grammarForJsonSchema({ type: "boolean" }, "answer-json");
    expect(grammar).toMatch(/^answer-json ::= /);
    expect(grammar).not.toMatch(/^root ::= /m);
  });
});

describe("a loose object's other keys", () => {
  test("are read as any value, as JSON Schema reads an empty schema, not refused", async () => {
    // zod writes `additionalProperties: {}` for z.looseObject and for z.fromJSONSchema of an object schema
    // that leaves additionalProperties out (how tessera serve reads response_format).
    for (const schema of [
      z.looseObject({ ok: z.boolean() }),
      z.fromJSONSchema({ type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }),
    ]) {
      const json = jsonSchemaOfZod(schema as z.ZodType);
      expect((json as { additionalProperties?: unknown }).additionalProperties).toEqual({});
      expect(normalizeJsonSchema(json)).toMatchObject({
        type: "object",
        properties: { ok: { type: "boolean" } },
        additionalProperties: true,
      });
      expect(await grammarForJsonSchema(json)).toContain("root ::=");
    }
    // A schema that says something about the other keys is still read as it says.
    expect(normalizeJsonSchema({ type: "object", additionalProperties: { type: "integer" } })).toEqual({
      type: "object",
      additionalProperties: { type: "integer" },
    });
    // Annotations say nothing about the values: read as empty.
    expect(
      normalizeJsonSchema({ type: "object", additionalProperties: { description: "x", title: "t" } }),
    ).toEqual({
      type: "object",
      additionalProperties: true,
    });
    expect(refusal({ type: "object", additionalProperties: { not: {} } }).schemaPath).toBe(
      "#/additionalProperties",
    );
  });

  test("an untyped subschema is refused for what it lacks, not for a keyword it does not use", () => {
    const error = refusal({ type: "object", properties: { x: {} } });
    expect(error.schemaPath).toBe("#/properties/x");
    expect(error.message).toContain(
      'The JSON schema at #/properties/x has no "type", which constrained decoding needs',
    );
    expect(error.message).not.toContain('uses "type"');
  });
});
