import { z } from "zod";
import type { OpenAIImageUrlPart } from "../openai-types.js";
import { parseOrThrow } from "../parse.js";
import { pngBytesSchema, pngFromBase64Schema, pngToDataUri } from "./png.js";

export const imageChunkSchema = z.strictObject({ type: z.literal("image"), image: pngBytesSchema });
export type ImageChunk = z.infer<typeof imageChunkSchema>;

export const openAIImagePartSchema = z
  .object({
    type: z.literal("image_url"),
    image_url: z.object({ url: pngFromBase64Schema, detail: z.string().nullish() }),
  })
  .transform((part): ImageChunk => ({ type: "image", image: part.image_url.url }));

/** An image held as PNG bytes; sent to OpenAI-compatible servers as a PNG data URI. */
export const ImageChunk = {
  schema: imageChunkSchema,
  create(image: Uint8Array): ImageChunk {
    return parseOrThrow(imageChunkSchema, { type: "image", image }, "image chunk");
  },
  toOpenAI(chunk: ImageChunk): OpenAIImageUrlPart {
    return { type: "image_url", image_url: { url: pngToDataUri(chunk.image) } };
  },
  /** Reads an `image_url` part whose url is a base64 PNG (with or without the data URI prefix). */
  fromOpenAI(part: unknown): ImageChunk {
    return parseOrThrow(openAIImagePartSchema, part, "OpenAI image part");
  },
};
