import { z } from "zod";
import type { OpenAIToolCall } from "./openai-types.js";
import { parseOrThrow } from "./parse.js";

export const toolCallFunctionSchema = z.strictObject({
  name: z.string().min(1),
  /** A JSON string as the wire carries it, or an already-parsed object. */
  arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
});

export const toolCallSchema = z.strictObject({
  id: z.string().optional(),
  type: z.literal("function"),
  function: toolCallFunctionSchema,
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const openAIToolCallSchema = z
  .object({
    id: z.string().nullish(),
    type: z.literal("function").optional(),
    function: z.object({ name: z.string().min(1), arguments: z.string().nullish() }),
  })
  .transform((call): ToolCall => {
    const toolCall: ToolCall = {
      type: "function",
      function: { name: call.function.name, arguments: call.function.arguments ?? "{}" },
    };
    if (call.id !== undefined && call.id !== null) toolCall.id = call.id;
    return toolCall;
  });

/** The arguments as the JSON text the wire and the instruction prompt carry. */
export function toolCallArgumentsText(toolCall: ToolCall): string {
  const args = toolCall.function.arguments;
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** A function call requested by an assistant turn. */
export const ToolCall = {
  schema: toolCallSchema,
  create(name: string, args: string | Record<string, unknown>, id?: string): ToolCall {
    return parseOrThrow(
      toolCallSchema,
      { type: "function", function: { name, arguments: args }, ...(id === undefined ? {} : { id }) },
      "tool call",
    );
  },
  toOpenAI(toolCall: ToolCall): OpenAIToolCall {
    const wire: OpenAIToolCall = {
      type: "function",
      function: { name: toolCall.function.name, arguments: toolCallArgumentsText(toolCall) },
    };
    return toolCall.id === undefined ? wire : { id: toolCall.id, ...wire };
  },
  fromOpenAI(wire: unknown): ToolCall {
    return parseOrThrow(openAIToolCallSchema, wire, "OpenAI tool call");
  },
};
