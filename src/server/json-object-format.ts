import { z } from "zod";

// Any JSON value, spelled out type by type: constrained decoding needs a type for every value (an empty
// "anything" schema has no grammar), and the recursion becomes a $defs reference the grammar can follow.
const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValue),
    z.record(z.string(), jsonValue),
  ]),
);

/**
 * `response_format: {"type": "json_object"}`: any JSON object, as OpenAI and llama-server constrain it.
 * The model can end its answer only once the object is closed, so a `stop` answer parses and a `length`
 * one is a prefix of an object.
 */
export const jsonObjectFormat: z.ZodType<Record<string, unknown>> = z.record(z.string(), jsonValue);
