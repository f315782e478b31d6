import { z } from "zod";

// Unknown top-level fields are ignored (clients send `user`, `metadata`, `parallel_tool_calls`, ...); the
// fields we act on are checked strictly, so a bad value is a 400 naming the field, never a crash.

const textPartSchema = z.object({ type: z.literal("text"), text: z.string() });
const imagePartSchema = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string().min(1), detail: z.string().optional() }),
});
const audioPartSchema = z.object({
  type: z.literal("input_audio"),
  input_audio: z.object({ data: z.string().min(1), format: z.string().min(1) }),
});
export const contentPartSchema = z.discriminatedUnion("type", [
  textPartSchema,
  imagePartSchema,
  audioPartSchema,
]);
export type ContentPart = z.infer<typeof contentPartSchema>;

const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

export const chatMessageSchema = z.object(
  {
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
    name: z.string().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    tool_call_id: z.string().optional(),
    reasoning_content: z.string().optional(),
  },
  // A bare string where a message belongs is the common mistake; say so in the request's terms.
  {
    error: (issue) =>
      issue.code === "invalid_type"
        ? `expected a message object ({ role, content }), but got ${jsonKind(issue.input)}`
        : undefined,
  },
);
export type ChatMessageInput = z.infer<typeof chatMessageSchema>;

const toolSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -"),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ToolInput = z.infer<typeof toolSchema>;

const responseFormatSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string().optional(),
      schema: z.record(z.string(), z.unknown()),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

/** What a JSON value is, in a client's words: "a number", "null", "an object". */
export function jsonKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Sampling fields shared by /v1/chat/completions and /v1/completions. */
const samplingShape = {
  // Required, as OpenAI requires it (its name is checked against the served model and aliases).
  model: z.string("model is required: the served model's name (GET /v1/models lists it)"),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  top_k: z.number().int().min(0).nullable().optional(),
  min_p: z.number().min(0).max(1).nullable().optional(),
  typical_p: z.number().gt(0).max(1).nullable().optional(),
  repetition_penalty: z.number().min(0).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  stop: z
    .union(
      [z.string(), z.array(z.string()).max(4)],
      "a string or an array of at most 4 strings, as OpenAI allows",
    )
    .nullable()
    .optional(),
  logit_bias: z
    .record(z.string().regex(/^\d+$/, "keys must be token ids"), z.number().min(-100).max(100))
    .nullable()
    .optional(),
  n: z.literal(1, "only n = 1 is supported").nullable().optional(),
  /** Extension: raw (pre-sampler) logits top-k per generated token, in choices[].tessera_raw_logits. */
  tessera_raw_logits_top_k: z.number().int().min(1).max(100).nullable().optional(),
};

export const chatCompletionRequestSchema = z.object({
  ...samplingShape,
  messages: z
    .array(chatMessageSchema, {
      error: (issue) =>
        issue.input === undefined
          ? "required: the conversation, as an array of messages ({ role, content })"
          : `expected an array of messages ({ role, content }), but got ${jsonKind(issue.input)}`,
    })
    .min(1, "at least one message is required"),
  tools: z.array(toolSchema).max(128).nullable().optional(),
  tool_choice: z
    .union([
      z.enum(["none", "auto", "required"]),
      z.object({ type: z.literal("function"), function: z.object({ name: z.string() }) }),
    ])
    .nullable()
    .optional(),
  response_format: responseFormatSchema.nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  reasoning_effort: z.enum(["low", "medium", "high"]).nullable().optional(),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

// OpenAI also takes token ids (an array of integers, or of such arrays) and several prompts at once; here
// one prompt of text, as a string or an array holding one string, read as that string. Each refusal says
// what was sent and what to send instead.
const isTokenId = (item: unknown): boolean => Number.isSafeInteger(item) && (item as number) >= 0;
const isTokenIds = (item: unknown): boolean =>
  isTokenId(item) || (Array.isArray(item) && item.length > 0 && item.every(isTokenId));

// The messages follow the field name (the 400 reads "prompt: …"), so they never repeat it.
const promptSchema = z
  .union([z.string(), z.array(z.unknown())], {
    error: (issue) =>
      issue.input === undefined
        ? "required: the text to continue, as a string (or an array holding one string)"
        : `expected text, as a string (or an array holding one string), but got ${jsonKind(issue.input)}`,
  })
  .superRefine((value, context) => {
    if (typeof value === "string") return;
    const refuse = (message: string) => context.addIssue({ code: "custom", message });
    const other = value.findIndex((item) => typeof item !== "string");
    if (value.length === 0) refuse("an empty array holds no text: send the text as a string");
    else if (value.every(isTokenIds)) refuse("token ids are not supported: send the text as a string");
    else if (other !== -1) {
      refuse(
        `expected an array holding one string of text, but item ${other} is ${jsonKind(value[other])}: send the text as a string`,
      );
    } else if (value.length !== 1) {
      refuse(`one text per request is supported, and this array holds ${value.length}: send one string`);
    }
  })
  .transform((value) => (typeof value === "string" ? value : (value[0] as string)));

export const completionRequestSchema = z.object({
  ...samplingShape,
  prompt: promptSchema,
  // Insertion (text to follow the completion) is not supported: refused rather than ignored, since a client
  // that sends it expects the completion to lead into it. null is what clients send for "none".
  // An empty suffix asks for no insertion, as null does.
  suffix: z
    .union([z.null(), z.literal("")], {
      error: (issue) =>
        typeof issue.input === "string"
          ? "insertion after the completion is not supported: leave it out, or send null or an empty string"
          : `expected null or an empty string (insertion after the completion is not supported), but got ${jsonKind(issue.input)}`,
    })
    .optional(),
  logprobs: z.number().int().min(0).max(20).nullable().optional(),
  echo: z.boolean().nullable().optional(),
});
export type CompletionRequest = z.infer<typeof completionRequestSchema>;

/** The sampling fields of either request. */
export type SamplingRequest = z.infer<z.ZodObject<typeof samplingShape>>;
