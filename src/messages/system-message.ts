import { z } from "zod";
import {
  type ContentChunk,
  contentChunkSchema,
  contentToOpenAI,
  openAIContentSchema,
} from "./chunks/content-chunk.js";
import type { OpenAISystemMessage } from "./openai-types.js";
import { parseOrThrow } from "./parse.js";

export const systemMessageSchema = z.strictObject({
  role: z.literal("system"),
  content: z.union([z.string(), z.array(contentChunkSchema)]),
});
export type SystemMessage = z.infer<typeof systemMessageSchema>;

export const openAISystemMessageSchema = z
  .object({ role: z.literal("system"), content: openAIContentSchema })
  .transform((message): SystemMessage => ({ role: "system", content: message.content }));

/** Instructions that set the assistant's behaviour; text or a list of chunks. */
export const SystemMessage = {
  schema: systemMessageSchema,
  create(content: string | ContentChunk[]): SystemMessage {
    return parseOrThrow(systemMessageSchema, { role: "system", content }, "system message");
  },
  toOpenAI(message: SystemMessage): OpenAISystemMessage {
    return { role: "system", content: contentToOpenAI(message.content) };
  },
  fromOpenAI(wire: unknown): SystemMessage {
    return parseOrThrow(openAISystemMessageSchema, wire, "OpenAI system message");
  },
};
