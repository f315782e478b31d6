import { UnsupportedJsonSchemaError } from "./errors/unsupported-json-schema-error.js";

/** The JSON-schema subset node-llama-cpp's grammar generator understands (its GbnfJsonSchema). */
export type GrammarJsonSchema = { readonly [keyword: string]: unknown };

type SchemaObject = Record<string, unknown>;

// Value checks a grammar cannot express: dropped here, enforced by zod after parsing.
const checkedAfterwards = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "pattern",
  "propertyNames",
  "uniqueItems",
]);
// Annotations that do not constrain anything.
const annotations = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "readOnly",
  "writeOnly",
  "deprecated",
  "contentEncoding",
  "contentMediaType",
]);
const grammarFormats = new Set(["date-time", "time", "date"]);
const basicTypes = new Set(["string", "number", "integer", "boolean", "null"]);
const maxDepth = 64;

/**
 * Rewrites a JSON schema (draft 2020-12, as `z.toJSONSchema` emits it) into the subset node-llama-cpp's
 * grammar generator handles: `anyOf` becomes `oneOf`, `const`/`enum` lose their redundant `type`, value
 * checks and annotations are dropped (zod validates the parsed value afterwards). Anything else that
 * changes which documents are valid (allOf, not, if/then, patternProperties, an empty "any" schema…)
 * throws UnsupportedJsonSchemaError rather than being silently ignored.
 */
export function normalizeJsonSchema(schema: unknown): GrammarJsonSchema {
  if (!isObject(schema)) throw new UnsupportedJsonSchemaError("#", "(root)", "the schema is not an object");
  const definitions = isObject(schema.$defs) ? schema.$defs : {};
  const result = normalize(schema, "#", 0, Object.keys(definitions)) as SchemaObject;
  if (isObject(schema.$defs)) {
    const normalizedDefinitions: SchemaObject = {};
    for (const [name, definition] of Object.entries(schema.$defs)) {
      normalizedDefinitions[name] = normalize(definition, `#/$defs/${name}`, 1, Object.keys(definitions));
    }
    result.$defs = normalizedDefinitions;
  }
  return result;
}

function normalize(schema: unknown, path: string, depth: number, definitionNames: string[]): unknown {
  if (depth > maxDepth)
    throw new UnsupportedJsonSchemaError(path, "(nesting)", `deeper than ${maxDepth} levels`);
  if (schema === true) throw new UnsupportedJsonSchemaError(path, "true", "an unconstrained value");
  if (!isObject(schema))
    throw new UnsupportedJsonSchemaError(path, "(schema)", "a subschema is not an object");
  const recurse = (child: unknown, childPath: string) =>
    normalize(child, childPath, depth + 1, definitionNames);
  for (const keyword of Object.keys(schema)) {
    if (!known.has(keyword))
      throw new UnsupportedJsonSchemaError(path, keyword, "unknown or unsupported keyword");
  }
  if ("$ref" in schema) {
    const reference = schema.$ref;
    const prefix = "#/$defs/";
    if (typeof reference !== "string" || !reference.startsWith(prefix)) {
      throw new UnsupportedJsonSchemaError(
        path,
        "$ref",
        `only references into #/$defs are supported, got ${String(reference)}`,
      );
    }
    if (!definitionNames.includes(reference.slice(prefix.length))) {
      throw new UnsupportedJsonSchemaError(path, "$ref", `${reference} does not exist`);
    }
    return { $ref: reference };
  }
  if ("const" in schema) return { const: literal(schema.const, path, "const") };
  if ("enum" in schema) {
    if (!Array.isArray(schema.enum) || schema.enum.length === 0) {
      throw new UnsupportedJsonSchemaError(path, "enum", "expected a non-empty array");
    }
    return { enum: schema.enum.map((value) => literal(value, path, "enum")) };
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) {
    const keyword = schema.anyOf !== undefined ? "anyOf" : "oneOf";
    if (!Array.isArray(alternatives) || alternatives.length === 0) {
      throw new UnsupportedJsonSchemaError(path, keyword, "expected a non-empty array");
    }
    return {
      oneOf: alternatives.map((alternative, index) => recurse(alternative, `${path}/${keyword}/${index}`)),
    };
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    if (!type.every((entry) => typeof entry === "string" && basicTypes.has(entry))) {
      // ["object", "null"] and the like: spell them out as alternatives.
      return {
        oneOf: type.map((entry, index) => recurse({ ...schema, type: entry }, `${path}/type/${index}`)),
      };
    }
    return { type };
  }
  if (type === "object") return normalizeObject(schema, path, recurse);
  if (type === "array") return normalizeArray(schema, path, recurse);
  if (type === "string") {
    const result: SchemaObject = { type };
    if (typeof schema.format === "string" && grammarFormats.has(schema.format))
      return { type, format: schema.format };
    if (typeof schema.minLength === "number") result.minLength = schema.minLength;
    if (typeof schema.maxLength === "number") result.maxLength = schema.maxLength;
    return result;
  }
  if (typeof type === "string" && basicTypes.has(type)) return { type };
  if (type === undefined) {
    throw new UnsupportedJsonSchemaError(
      path,
      "type",
      "without one the subschema admits any value, which a grammar cannot bound; give it a type (or an enum or const)",
      { missing: true },
    );
  }
  throw new UnsupportedJsonSchemaError(
    path,
    "type",
    `a schema without a supported type (${JSON.stringify(type)})`,
  );
}

function normalizeObject(
  schema: SchemaObject,
  path: string,
  recurse: (child: unknown, childPath: string) => unknown,
) {
  const result: SchemaObject = { type: "object" };
  if (schema.properties !== undefined) {
    if (!isObject(schema.properties))
      throw new UnsupportedJsonSchemaError(path, "properties", "expected an object");
    const properties: SchemaObject = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      properties[name] = recurse(property, `${path}/properties/${name}`);
    }
    result.properties = properties;
  }
  if (Array.isArray(schema.required)) result.required = schema.required;
  const additional = schema.additionalProperties;
  if (additional === true || additional === false) result.additionalProperties = additional;
  // An empty schema admits any value, as `true` does. zod writes it for a loose object's other keys
  // (z.looseObject, z.fromJSONSchema of an object schema that leaves additionalProperties out): refusing it
  // named a keyword the user never wrote. (tessera serve closes such response_format objects first.)
  // Annotations (a description, a title) say nothing about which values are valid: such a schema is empty.
  else if (isObject(additional) && Object.keys(additional).every((keyword) => annotations.has(keyword))) {
    result.additionalProperties = true;
  } else if (additional !== undefined)
    result.additionalProperties = recurse(additional, `${path}/additionalProperties`);
  if (typeof schema.minProperties === "number") result.minProperties = schema.minProperties;
  if (typeof schema.maxProperties === "number") result.maxProperties = schema.maxProperties;
  return result;
}

function normalizeArray(
  schema: SchemaObject,
  path: string,
  recurse: (child: unknown, childPath: string) => unknown,
) {
  const result: SchemaObject = { type: "array" };
  // `items: false` after prefixItems means "no more items", which maxItems already says.
  if (schema.items !== undefined && schema.items !== false)
    result.items = recurse(schema.items, `${path}/items`);
  if (Array.isArray(schema.prefixItems)) {
    result.prefixItems = schema.prefixItems.map((item, index) =>
      recurse(item, `${path}/prefixItems/${index}`),
    );
  }
  if (typeof schema.minItems === "number") result.minItems = schema.minItems;
  if (typeof schema.maxItems === "number") result.maxItems = schema.maxItems;
  else if (schema.items === false && Array.isArray(schema.prefixItems))
    result.maxItems = schema.prefixItems.length;
  return result;
}

const structural = [
  "$ref",
  "$defs",
  "const",
  "enum",
  "anyOf",
  "oneOf",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "format",
];
const known = new Set([...structural, ...checkedAfterwards, ...annotations]);

function literal(value: unknown, path: string, keyword: string): string | number | boolean | null {
  if (
    value === null ||
    typeof value === "string" ||
    typeof value === "number" ||
    typeof value === "boolean"
  ) {
    return value;
  }
  throw new UnsupportedJsonSchemaError(
    path,
    keyword,
    "only string, number, boolean and null literals are supported",
  );
}

function isObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
