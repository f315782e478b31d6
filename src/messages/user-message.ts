import { z } from "zod";
import {
  type ContentChunk,
  contentChunkSchema,
  contentToOpenAI,
  openAIContentSchema,
} from "./chunks/content-chunk.js";
import type { OpenAIUserMessage } from "./openai-types.js";
import { parseOrThrow } from "./parse.js";

export const userMessageSchema = z.strictObject({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(contentChunkSchema)]),
});
export type UserMessage = z.infer<typeof userMessageSchema>;

export const openAIUserMessageSchema = z
  .object({ role: z.literal("user"), content: openAIContentSchema })
  .transform((message): UserMessage => ({ role: "user", content: message.content }));

/** A user turn; text or a list of text and image chunks. */
export const UserMessage = {
  schema: userMessageSchema,
  create(content: string | ContentChunk[]): UserMessage {
    return parseOrThrow(userMessageSchema, { role: "user", content }, "user message");
  },
  toOpenAI(message: UserMessage): OpenAIUserMessage {
    return { role: "user", content: contentToOpenAI(message.content) };
  },
  fromOpenAI(wire: unknown): UserMessage {
    return parseOrThrow(openAIUserMessageSchema, wire, "OpenAI user message");
  },
};
