import { z } from "zod";
import {
  type ChatMessage,
  chatMessageSchema,
  chatMessageToOpenAI,
  openAIChatMessageSchema,
} from "./chat-message.js";
import { makeInstructionPrompt } from "./instruction-prompt.js";
import type { OpenAIChatMessage } from "./openai-types.js";
import { parseOrThrow } from "./parse.js";

export const messagesHistorySchema = z.array(chatMessageSchema);
const openAIMessagesSchema = z.array(openAIChatMessageSchema);

/** An ordered conversation, convertible to and from the OpenAI wire format. */
export class MessagesHistory {
  readonly messages: readonly ChatMessage[];

  constructor(messages: readonly ChatMessage[]) {
    this.messages = Object.freeze(parseOrThrow(messagesHistorySchema, messages, "messages history"));
  }

  /** Errors name the message index and field, e.g. `[2].role` or `[1].content[0].text`. */
  static fromOpenAI(wire: unknown): MessagesHistory {
    return new MessagesHistory(parseOrThrow(openAIMessagesSchema, wire, "OpenAI messages"));
  }

  /** System messages whose content is the empty string are dropped, as the seed does. */
  toOpenAI(): OpenAIChatMessage[] {
    return this.messages
      .filter((message) => !(message.role === "system" && message.content === ""))
      .map(chatMessageToOpenAI);
  }

  makeInstructionPrompt(conversationNameHolder = "Messages", mentionLastTurn = true): string {
    return makeInstructionPrompt(this.messages, conversationNameHolder, mentionLastTurn);
  }
}
