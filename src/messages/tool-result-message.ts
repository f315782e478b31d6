import { z } from "zod";
import { MissingToolCallIdError } from "./errors/missing-tool-call-id-error.js";
import type { OpenAIToolMessage } from "./openai-types.js";
import { parseOrThrow } from "./parse.js";

export const toolResultMessageSchema = z.strictObject({
  role: z.literal("tool"),
  content: z.string(),
  toolCallId: z.string().nullable(),
});
/** The seed's `ToolMessage`; renamed because `ToolMessage` is the stdlib component. */
export type ToolResultMessage = z.infer<typeof toolResultMessageSchema>;

export const openAIToolMessageSchema = z
  .object({
    role: z.literal("tool"),
    content: z.string(),
    tool_call_id: z.string({ message: "a tool message needs the tool_call_id of the call it answers" }),
  })
  .transform(
    (message): ToolResultMessage => ({
      role: "tool",
      content: message.content,
      toolCallId: message.tool_call_id,
    }),
  );

/** The result of running a tool, sent back to the model. */
export const ToolResultMessage = {
  schema: toolResultMessageSchema,
  create(content: string, toolCallId: string | null = null): ToolResultMessage {
    return parseOrThrow(
      toolResultMessageSchema,
      { role: "tool", content, toolCallId },
      "tool result message",
    );
  },
  toOpenAI(message: ToolResultMessage): OpenAIToolMessage {
    if (message.toolCallId === null) throw new MissingToolCallIdError("ToolResultMessage.toOpenAI");
    return { role: "tool", content: message.content, tool_call_id: message.toolCallId };
  },
  fromOpenAI(wire: unknown): ToolResultMessage {
    return parseOrThrow(openAIToolMessageSchema, wire, "OpenAI tool message");
  },
};
