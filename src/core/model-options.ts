import { z } from "zod";
import { AbstractTool } from "./abstract-tool.js";
import { InvalidModelOptionError } from "./errors/invalid-model-option-error.js";
import { UnknownModelOptionError } from "./errors/unknown-model-option-error.js";

/** Per-token logits capture: off, the top k alternatives, or the full vocabulary vector. */
export type LogitsRequest = false | number | "full";

const logitsRequestSchema = z.union([z.literal(false), z.number().int().positive(), z.literal("full")]);

/** The options every backend understands. Backends add their own with extendModelOptionsSchema(). */
export const modelOptionsShape = {
  temperature: z.number().min(0).optional(),
  topK: z.number().int().min(0).optional(),
  topP: z.number().gt(0).max(1).optional(),
  minP: z.number().min(0).max(1).optional(),
  typicalP: z.number().gt(0).max(1).optional(),
  repeatPenalty: z.number().min(0).optional(),
  frequencyPenalty: z.number().optional(),
  presencePenalty: z.number().optional(),
  /** Token id (as a string key) to additive bias; -Infinity bans a token. */
  logitBias: z.record(z.string(), z.number()).optional(),
  maxNewTokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  systemPrompt: z.string().optional(),
  stopSequences: z.array(z.string()).optional(),
  tools: z
    .array(z.custom<AbstractTool>((value) => AbstractTool.isInstance(value), "expected a tool"))
    .optional(),
  /** Ask a reasoning model to think first; a level where the model supports one. */
  thinking: z.union([z.boolean(), z.enum(["low", "medium", "high"])]).optional(),
  stream: z.boolean().optional(),
  /** Context window (tokens) to allocate for this generation. */
  contextWindow: z.number().int().positive().optional(),
  /** Processed logits (what the sampler saw): off, top-k, or "full". */
  logits: logitsRequestSchema.optional(),
  /** Raw LM-head logits: off, top-k, or "full". */
  rawLogits: logitsRequestSchema.optional(),
} satisfies z.ZodRawShape;

export const modelOptionsSchema = z.strictObject(modelOptionsShape);

export type ModelOptions = z.infer<typeof modelOptionsSchema>;

/** A strict schema of the common options plus a backend's own (for example `{ nGpuLayers: z.number() }`). */
export function extendModelOptionsSchema<Extra extends z.ZodRawShape>(extraShape: Extra) {
  return z.strictObject({ ...modelOptionsShape, ...extraShape });
}

/**
 * Merge option layers, later layers winning (pass backend defaults, then session, then call). Undefined
 * values do not override. Backends with extra options name their type: mergeModelOptions<MyOptions>(...).
 */
export function mergeModelOptions<Options extends ModelOptions = ModelOptions>(
  ...layers: ReadonlyArray<NoInfer<Options> | null | undefined>
): Options {
  const merged: Record<string, unknown> = {};
  for (const layer of layers) {
    if (layer === null || layer === undefined) continue;
    for (const [key, value] of Object.entries(layer)) {
      if (value !== undefined) merged[key] = value;
    }
  }
  return merged as Options;
}

/**
 * Validate options against a strict schema (the common one by default). Unknown names throw
 * UnknownModelOptionError listing the valid ones; bad values throw InvalidModelOptionError.
 */
export function validateModelOptions<Schema extends z.ZodObject = typeof modelOptionsSchema>(
  options: unknown,
  schema: Schema = modelOptionsSchema as unknown as Schema,
): z.infer<Schema> {
  const checked = validPresentOptions(options ?? {}, schema);
  if (checked !== null) return checked as z.infer<Schema>;
  // Anything the quick check does not pass is parsed whole, so every refusal reads as it always has.
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const validNames = Object.keys(schema.shape);
  for (const issue of parsed.error.issues) {
    if (issue.code === "unrecognized_keys") throw new UnknownModelOptionError(issue.keys, validNames);
  }
  const issue = parsed.error.issues[0]!;
  const optionName = issue.path.length > 0 ? issue.path.map(String).join(".") : "(options)";
  const received =
    issue.path.length > 0 && typeof options === "object" && options !== null
      ? (options as Record<string, unknown>)[String(issue.path[0])]
      : options;
  throw new InvalidModelOptionError(optionName, received, expectationOf(issue));
}

/**
 * The options checked one by one, only those the caller gave; null when that is not enough to decide, and
 * the whole schema is parsed instead: a value that is not a plain object, an unknown name, a bad value, a
 * key zod would read that is not an own enumerable one, a schema with object-level checks (refine) or a
 * field that is not optional in and out (required, or with a default), which only the whole parse handles.
 * A request gives a handful of the ~26 options: parsing the whole strict object took 38-51 µs per request
 * on a cold path (a served request after other work), this check 22-32 µs (scratch probe, 5 ms gaps).
 */
function validPresentOptions(options: unknown, schema: z.ZodObject): Record<string, unknown> | null {
  if (
    typeof options !== "object" ||
    options === null ||
    Object.getPrototypeOf(options) !== Object.prototype
  ) {
    return null;
  }
  const definition = schema._zod.def;
  if (definition.type !== "object" || (definition.checks?.length ?? 0) > 0) return null;
  const shape = definition.shape as Record<string, z.ZodType>;
  const given = options as Record<string, unknown>;
  // In the schema's order, as the whole parse returns them.
  const result: Record<string, unknown> = {};
  let count = 0;
  try {
    for (const key of Object.keys(shape)) {
      const field = shape[key]!;
      // What zod itself asks before it skips a missing key.
      if (field._zod.optin !== "optional" || field._zod.optout !== "optional") return null;
      if (!(key in given)) continue;
      if (!Object.prototype.propertyIsEnumerable.call(given, key)) return null;
      const parsed = field.safeParse(given[key]);
      if (!parsed.success) return null;
      result[key] = parsed.data;
      count++;
    }
  } catch {
    // An async check or a throwing getter: the whole parse says what it always said.
    return null;
  }
  // An unknown name (an own key outside the schema) is the whole parse's to refuse.
  return Object.keys(given).length === count ? result : null;
}

function expectationOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "too_small")
    return `expected ${issue.inclusive ? "at least" : "more than"} ${issue.minimum}`;
  if (issue.code === "too_big")
    return `expected ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}`;
  return issue.message.replace(/^Invalid input: /, "").replace(/^./, (letter) => letter.toLowerCase());
}
