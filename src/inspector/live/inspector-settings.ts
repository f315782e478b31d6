// The sampler settings a page may send, checked with zod in the request's own field names. They map
// onto the local backend's generate options (which check them again, with its typed errors).
import { z } from "zod";
import type { BranchGenerateOptions } from "../../backends/llamacpp/branches/llama-branch.js";

export const samplerSettingsSchema = z
  .object({
    temperature: z.number().min(0).max(100).optional(),
    topK: z.number().int().min(0).max(65536).optional(),
    topP: z.number().gt(0).max(1).optional(),
    minP: z.number().min(0).max(1).optional(),
    typicalP: z.number().gt(0).max(1).optional(),
    repeatPenalty: z.number().min(1e-6).max(1e6).optional(),
    seed: z.number().int().min(0).max(4294967294).optional(),
    maxTokens: z.number().int().min(1).max(4096).optional(),
  })
  .strict();

export type SamplerSettings = z.infer<typeof samplerSettingsSchema>;

/** Alternatives captured per token, raw and processed. */
export const liveAlternatives = 8;

export function generateOptionsOf(settings: SamplerSettings): BranchGenerateOptions {
  // Only the settings given: an absent sampler is not in the chain at all.
  const samplers = Object.fromEntries(
    Object.entries(settings).filter(([name, value]) => name !== "maxTokens" && value !== undefined),
  ) as BranchGenerateOptions;
  // A small queue: a held branch decodes at most this many tokens ahead of what the page has read.
  return { ...samplers, logits: liveAlternatives, rawLogits: liveAlternatives, queueCapacity: 4 };
}
