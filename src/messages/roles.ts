import { z } from "zod";

/** The four chat roles of the OpenAI chat format. */
export const roleSchema = z.enum(["system", "user", "assistant", "tool"]);
export type Role = z.infer<typeof roleSchema>;
export const roles: readonly Role[] = roleSchema.options;

/** The kinds of content chunk a system or user message may hold. */
export const chunkTypeSchema = z.enum(["text", "image", "image_url"]);
export type ChunkType = z.infer<typeof chunkTypeSchema>;
