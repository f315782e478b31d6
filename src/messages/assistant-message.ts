import { z } from "zod";
import type { OpenAIAssistantMessage } from "./openai-types.js";
import { parseOrThrow } from "./parse.js";
import { openAIToolCallSchema, ToolCall, toolCallSchema } from "./tool-call.js";

export const assistantMessageSchema = z.strictObject({
  role: z.literal("assistant"),
  content: z.string().nullable(),
  toolCalls: z.array(toolCallSchema).nullable(),
  /** Continue this text instead of starting a new turn (prefix fill). */
  prefix: z.boolean(),
});
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

export const openAIAssistantMessageSchema = z
  .object({
    role: z.literal("assistant"),
    content: z.string().nullish(),
    tool_calls: z.array(openAIToolCallSchema).nullish(),
    prefix: z.boolean().optional(),
  })
  .transform(
    (message): AssistantMessage => ({
      role: "assistant",
      content: message.content ?? null,
      toolCalls: message.tool_calls ?? null,
      prefix: message.prefix ?? false,
    }),
  );

export interface AssistantMessageInit {
  content?: string | null;
  toolCalls?: ToolCall[] | null;
  prefix?: boolean;
}

/** The model's turn: text, tool calls, or both. */
export const AssistantMessage = {
  schema: assistantMessageSchema,
  create(init: string | AssistantMessageInit = {}): AssistantMessage {
    const fields = typeof init === "string" ? { content: init } : init;
    return parseOrThrow(
      assistantMessageSchema,
      {
        role: "assistant",
        content: fields.content ?? null,
        toolCalls: fields.toolCalls ?? null,
        prefix: fields.prefix ?? false,
      },
      "assistant message",
    );
  },
  /** Content is always present ("" for a tool-only turn) so servers that require the field accept it. */
  toOpenAI(message: AssistantMessage): OpenAIAssistantMessage {
    const wire: OpenAIAssistantMessage = { role: "assistant", content: message.content ?? "" };
    if (message.toolCalls !== null) wire.tool_calls = message.toolCalls.map(ToolCall.toOpenAI);
    if (message.prefix) wire.prefix = true;
    return wire;
  },
  fromOpenAI(wire: unknown): AssistantMessage {
    return parseOrThrow(openAIAssistantMessageSchema, wire, "OpenAI assistant message");
  },
};
