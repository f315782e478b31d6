// A response_format schema's objects that leave additionalProperties out are closed before the grammar is
// made, as llama-server reads them and OpenAI's strict mode requires; what a schema states is kept, and
// only schema positions are read as schemas (property names and enum data are left alone).
import { describe, expect, it } from "vitest";
import { closeObjectSchemas } from "../../src/server/close-object-schemas.js";
import { InvalidRequestError } from "../../src/server/errors/invalid-request-error.js";

describe("closeObjectSchemas", () => {
  it("closes every object with properties that says nothing about other keys, at any depth", () => {
    const schema = {
      type: "object",
      properties: {
        a: { type: "object", properties: { b: { type: "boolean" } } },
        list: { type: "array", items: { type: "object", properties: { c: { type: "string" } } } },
        either: { anyOf: [{ type: "object", properties: {} }, { type: "null" }] },
        free: { type: "object" },
        someKeys: { type: "object", minProperties: 1 },
        pair: { type: "array", prefixItems: [{ type: ["object", "null"], properties: {} }] },
        ref: { $ref: "#/$defs/node" },
      },
      $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } },
    };
    expect(closeObjectSchemas(schema)).toEqual({
      type: "object",
      properties: {
        a: { type: "object", properties: { b: { type: "boolean" } }, additionalProperties: false },
        list: {
          type: "array",
          items: { type: "object", properties: { c: { type: "string" } }, additionalProperties: false },
        },
        either: {
          anyOf: [{ type: "object", properties: {}, additionalProperties: false }, { type: "null" }],
        },
        // Free-form objects (no properties) stay open, as llama-server keeps them.
        free: { type: "object" },
        someKeys: { type: "object", minProperties: 1 },
        pair: {
          type: "array",
          prefixItems: [{ type: ["object", "null"], properties: {}, additionalProperties: false }],
        },
        ref: { $ref: "#/$defs/node" },
      },
      $defs: {
        node: {
          type: "object",
          properties: { next: { $ref: "#/$defs/node" } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    });
  });

  it("keeps what a schema states, reads only schema positions, and leaves its input alone", () => {
    const schema = {
      type: "object",
      properties: {
        // Property names that are also keywords: the names are not schemas.
        properties: { type: "string" },
        type: { type: "object", additionalProperties: true },
        additionalProperties: { type: "integer" },
        loose: { type: "object", additionalProperties: { type: "number" } },
        choice: { enum: [{ type: "object" }], const: { properties: {} }, default: { type: "object" } },
      },
      required: ["properties"],
    };
    const copy = structuredClone(schema);
    const closed = closeObjectSchemas(schema) as Record<string, Record<string, unknown>>;
    expect(schema).toEqual(copy);
    expect(closed.properties).toEqual(copy.properties);
    expect(closed.additionalProperties).toBe(false);
    expect(closed.required).toEqual(["properties"]);
  });

  it("never writes through a __proto__ key", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object"}}}');
    const closed = closeObjectSchemas(schema) as { properties: Record<string, unknown> };
    expect(Object.getPrototypeOf(closed.properties)).toBe(Object.prototype);
    expect(Object.hasOwn(closed.properties, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });

  it("leaves not, if and contains as written, since closing would change what they mean", () => {
    const schema = {
      type: "array",
      contains: { type: "object", properties: { a: { type: "string" } } },
      not: { type: "object", properties: { b: { type: "string" } } },
    };
    expect(closeObjectSchemas(schema)).toEqual(schema);
  });

  it("refuses a schema nested past 256 levels with a request error, not a stack overflow", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 2_000; level++) deep = { type: "object", properties: { x: deep } };
    expect(() => closeObjectSchemas(deep)).toThrow(InvalidRequestError);
    expect(() => closeObjectSchemas(deep)).toThrow(/nests deeper than 256 levels/);
  });

  it("refuses a schema of more than 5,000 subschemas at once, before any grammar work", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 200_000 }, (_, index) => [`p${index}`, { type: "string" }]),
    );
    // Refused from the count, before zod, the normalizer and the grammar (that path took ~35 s).
    expect(() => closeObjectSchemas({ type: "object", properties })).toThrow(/more than 5000 subschemas/);
    const fits = Object.fromEntries(
      Array.from({ length: 4_000 }, (_, index) => [`p${index}`, { type: "string" }]),
    );
    expect(() => closeObjectSchemas({ type: "object", properties: fits })).not.toThrow();
  });
});
