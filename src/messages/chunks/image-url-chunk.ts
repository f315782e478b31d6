import { z } from "zod";
import type { OpenAIImageUrlPart } from "../openai-types.js";
import { parseOrThrow } from "../parse.js";

export const imageUrlSchema = z.strictObject({ url: z.string(), detail: z.string().optional() });
export type ImageURL = z.infer<typeof imageUrlSchema>;

export const imageUrlChunkSchema = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.union([z.string(), imageUrlSchema]),
});
export type ImageURLChunk = z.infer<typeof imageUrlChunkSchema>;

export const openAIImageUrlPartSchema = z
  .object({
    type: z.literal("image_url"),
    image_url: z.union([z.string(), z.object({ url: z.string(), detail: z.string().nullish() })]),
  })
  .transform((part): ImageURLChunk => {
    const source = part.image_url;
    if (typeof source === "string") return { type: "image_url", image_url: source };
    const imageUrl: ImageURL = { url: source.url };
    if (source.detail !== undefined && source.detail !== null) imageUrl.detail = source.detail;
    return { type: "image_url", image_url: imageUrl };
  });

/** An image referenced by URL (http(s) or data URI), optionally with a detail hint. */
export const ImageURLChunk = {
  schema: imageUrlChunkSchema,
  create(imageUrl: string | ImageURL): ImageURLChunk {
    return parseOrThrow(imageUrlChunkSchema, { type: "image_url", image_url: imageUrl }, "image URL chunk");
  },
  getUrl(chunk: ImageURLChunk): string {
    return typeof chunk.image_url === "string" ? chunk.image_url : chunk.image_url.url;
  },
  /** `detail` is emitted only when set, as strict servers reject `detail: null`. */
  toOpenAI(chunk: ImageURLChunk): OpenAIImageUrlPart {
    const imageUrl: OpenAIImageUrlPart["image_url"] = { url: ImageURLChunk.getUrl(chunk) };
    if (typeof chunk.image_url !== "string" && chunk.image_url.detail !== undefined) {
      imageUrl.detail = chunk.image_url.detail;
    }
    return { type: "image_url", image_url: imageUrl };
  },
  fromOpenAI(part: unknown): ImageURLChunk {
    return parseOrThrow(openAIImageUrlPartSchema, part, "OpenAI image_url part");
  },
};
