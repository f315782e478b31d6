import { z } from "zod";
import {
  AssistantMessage,
  assistantMessageSchema,
  openAIAssistantMessageSchema,
} from "./assistant-message.js";
import type { OpenAIChatMessage } from "./openai-types.js";
import { parseOrThrow } from "./parse.js";
import { openAISystemMessageSchema, SystemMessage, systemMessageSchema } from "./system-message.js";
import {
  openAIToolMessageSchema,
  ToolResultMessage,
  toolResultMessageSchema,
} from "./tool-result-message.js";
import { openAIUserMessageSchema, UserMessage, userMessageSchema } from "./user-message.js";

export const chatMessageSchema = z.discriminatedUnion("role", [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolResultMessageSchema,
]);
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/** Any OpenAI chat message, parsed by its role; an unknown role names the allowed ones. */
export const openAIChatMessageSchema = z.discriminatedUnion("role", [
  openAISystemMessageSchema,
  openAIUserMessageSchema,
  openAIAssistantMessageSchema,
  openAIToolMessageSchema,
]);

export function chatMessageToOpenAI(message: ChatMessage): OpenAIChatMessage {
  switch (message.role) {
    case "system":
      return SystemMessage.toOpenAI(message);
    case "user":
      return UserMessage.toOpenAI(message);
    case "assistant":
      return AssistantMessage.toOpenAI(message);
    case "tool":
      return ToolResultMessage.toOpenAI(message);
  }
}

export function chatMessageFromOpenAI(wire: unknown): ChatMessage {
  return parseOrThrow(openAIChatMessageSchema, wire, "OpenAI chat message");
}
