import { z } from "zod";
import type { OpenAITextPart } from "../openai-types.js";
import { parseOrThrow } from "../parse.js";

export const textChunkSchema = z.strictObject({ type: z.literal("text"), text: z.string() });
export type TextChunk = z.infer<typeof textChunkSchema>;

/** The OpenAI text part, parsed straight into a `TextChunk` (unknown keys are ignored, as servers add some). */
export const openAITextPartSchema = z
  .object({ type: z.literal("text"), text: z.string() })
  .transform((part): TextChunk => ({ type: "text", text: part.text }));

/** A piece of plain text inside a multimodal message. */
export const TextChunk = {
  schema: textChunkSchema,
  create(text: string): TextChunk {
    return parseOrThrow(textChunkSchema, { type: "text", text }, "text chunk");
  },
  toOpenAI(chunk: TextChunk): OpenAITextPart {
    return { type: "text", text: chunk.text };
  },
  fromOpenAI(part: unknown): TextChunk {
    return parseOrThrow(openAITextPartSchema, part, "OpenAI text part");
  },
};
