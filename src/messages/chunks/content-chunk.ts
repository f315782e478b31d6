import { z } from "zod";
import type { OpenAIContentPart } from "../openai-types.js";
import { parseOrThrow } from "../parse.js";
import { ImageChunk, imageChunkSchema } from "./image-chunk.js";
import { ImageURLChunk, imageUrlChunkSchema, openAIImageUrlPartSchema } from "./image-url-chunk.js";
import { openAITextPartSchema, TextChunk, textChunkSchema } from "./text-chunk.js";

export const contentChunkSchema = z.discriminatedUnion("type", [
  textChunkSchema,
  imageChunkSchema,
  imageUrlChunkSchema,
]);
export type ContentChunk = z.infer<typeof contentChunkSchema>;

/**
 * An OpenAI content part, parsed into a chunk. As in the seed, an `image_url` part becomes an
 * `ImageURLChunk` even when it holds a data URI; `ImageChunk.fromOpenAI` gives the bytes.
 */
export const openAIContentPartSchema = z.discriminatedUnion("type", [
  openAITextPartSchema,
  openAIImageUrlPartSchema,
]);

const openAIContentPartsSchema = z.array(openAIContentPartSchema);

/**
 * Message content: a string, or a list of parts. Chosen by the input's type (not a zod union) so
 * a bad part reports its own path, e.g. `content[1].image_url`, instead of "Invalid input".
 */
export const openAIContentSchema = z.unknown().transform((value, context): string | ContentChunk[] => {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) {
    context.issues.push({
      code: "custom",
      input: value,
      message: "expected a string or an array of content parts",
    });
    return z.NEVER;
  }
  const result = openAIContentPartsSchema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    // Re-raised as custom issues: zod prefixes their paths with this field's own path.
    context.issues.push({ code: "custom", input: value, path: issue.path, message: issue.message });
  }
  return z.NEVER;
});

export function contentChunkToOpenAI(chunk: ContentChunk): OpenAIContentPart {
  switch (chunk.type) {
    case "text":
      return TextChunk.toOpenAI(chunk);
    case "image":
      return ImageChunk.toOpenAI(chunk);
    case "image_url":
      return ImageURLChunk.toOpenAI(chunk);
  }
}

export function contentChunkFromOpenAI(part: unknown): ContentChunk {
  return parseOrThrow(openAIContentPartSchema, part, "OpenAI content part");
}

export function contentToOpenAI(content: string | readonly ContentChunk[]): string | OpenAIContentPart[] {
  return typeof content === "string" ? content : content.map(contentChunkToOpenAI);
}
