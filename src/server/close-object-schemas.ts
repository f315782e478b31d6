/**
 * A response_format schema with each object that leaves `additionalProperties` out closed
 * (`additionalProperties: false`), as llama-server reads it for its grammar and as OpenAI's strict mode
 * requires it. Read as JSON Schema says (other keys allowed), the model may write keys the client never
 * asked for, and on small models often opens one it never closes. An object that states
 * `additionalProperties` keeps what it states. The input is not changed: a copy is returned.
 */
export function closeObjectSchemas(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closeObjectSchemas);
  if (!isPlainObject(schema)) return schema;
  // Built from entries (never by assignment), so no key, "__proto__" included, can reach a prototype.
  const entries = Object.entries(schema).map(([keyword, value]): [string, unknown] => {
    if (schemaMapKeywords.has(keyword) && isPlainObject(value)) {
      // A map from names to schemas: the names are not keywords, only the values are schemas.
      return [
        keyword,
        Object.fromEntries(Object.entries(value).map(([name, child]) => [name, closeObjectSchemas(child)])),
      ];
    }
    // Values of other keywords (enum, const, default, examples, required...) are data, not schemas.
    return [keyword, schemaKeywords.has(keyword) ? closeObjectSchemas(value) : value];
  });
  if (describesObject(schema) && !Object.hasOwn(schema, "additionalProperties")) {
    entries.push(["additionalProperties", false]);
  }
  return Object.fromEntries(entries);
}

/** Keywords whose value is a schema or an array of schemas. */
const schemaKeywords = new Set([
  "additionalProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);

/** Keywords whose value maps names to schemas. */
const schemaMapKeywords = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);

function describesObject(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  return (
    type === "object" || (Array.isArray(type) && type.includes("object")) || isPlainObject(schema.properties)
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
