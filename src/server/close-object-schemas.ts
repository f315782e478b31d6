import { InvalidRequestError } from "./errors/invalid-request-error.js";

/**
 * Past this depth (arrays and maps each count a level) the walk refuses instead of overflowing the stack,
 * which ~1,500 levels did; the grammar's normalizer refuses schemas past 64 of its own levels anyway.
 */
const deepestSchema = 256;

/**
 * The most subschemas one schema may hold: a deliberate bound on the work a request can make the server's
 * thread do (reading the schema, making its grammar and checking it), since each step runs there. Reviewers
 * measured 200,000 properties holding the server 5 to 37 s, depending on their schemas, before the grammar's
 * 256 KB limit refused them. Flat objects reach that limit at ~3,800 properties anyway; an anyOf of 25,000
 * constants still fitted it, and is refused here. OpenAI's strict mode takes 100 properties.
 */
const mostSubschemas = 5_000;

/**
 * A response_format schema with each object that declares `properties` and leaves `additionalProperties`
 * out closed (`additionalProperties: false`), as llama-server reads it for its grammar and as OpenAI's
 * strict mode requires it. Read as JSON Schema says (other keys allowed), the model may write keys the
 * client never asked for, and on small models often opens one it never closes. An object without
 * `properties` is free-form and stays open, as llama-server keeps it; an object that states
 * `additionalProperties` keeps what it states. Only positions where a closed object means the same to the
 * client are walked (not `not`, `if`, `contains`, whose meaning closing would change). The input is not
 * changed: a copy is returned.
 */
export function closeObjectSchemas(schema: unknown): unknown {
  return closeWithin(schema, 0, { subschemas: 0 });
}

function closeWithin(schema: unknown, depth: number, seen: { subschemas: number }): unknown {
  if (depth > deepestSchema) {
    throw new InvalidRequestError(
      `the JSON schema nests deeper than ${deepestSchema} levels, more than constrained decoding takes: flatten it`,
      "response_format.json_schema.schema",
    );
  }
  if (Array.isArray(schema)) return schema.map((item) => closeWithin(item, depth + 1, seen));
  if (!isPlainObject(schema)) return schema;
  seen.subschemas++;
  if (seen.subschemas > mostSubschemas) {
    throw new InvalidRequestError(
      `the JSON schema holds more than ${mostSubschemas} subschemas, more than one grammar can enforce: split or simplify it`,
      "response_format.json_schema.schema",
    );
  }
  // Built from entries (never by assignment), so no key, "__proto__" included, can reach a prototype.
  const entries = Object.entries(schema).map(([keyword, value]): [string, unknown] => {
    if (schemaMapKeywords.has(keyword) && isPlainObject(value)) {
      // A map from names to schemas: the names are not keywords, only the values are schemas.
      return [
        keyword,
        Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, closeWithin(child, depth + 1, seen)]),
        ),
      ];
    }
    // Values of other keywords (enum, const, default, examples, required...) are data, not schemas.
    return [keyword, schemaKeywords.has(keyword) ? closeWithin(value, depth + 1, seen) : value];
  });
  if (isPlainObject(schema.properties) && !Object.hasOwn(schema, "additionalProperties")) {
    entries.push(["additionalProperties", false]);
  }
  return Object.fromEntries(entries);
}

/** Keywords whose value is a schema or an array of schemas, each read as the client's own value. */
const schemaKeywords = new Set([
  "additionalProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "anyOf",
  "oneOf",
  "allOf",
]);

/** Keywords whose value maps names to schemas. */
const schemaMapKeywords = new Set(["properties", "patternProperties", "$defs", "definitions"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
