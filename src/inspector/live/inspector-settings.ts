// The sampler settings a page may send, checked with zod in the request's own field names. They map
// onto the local backend's generate options (which check them again, with its typed errors).
import { z } from "zod";
import type { BranchGenerateOptions } from "../../backends/llamacpp/branches/llama-branch.js";
import {
  type GenerateTokensOptions,
  resolveGenerateOptions,
} from "../../backends/llamacpp/native-generate-options.js";

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
    // JSON has no -Infinity: "-inf" bans a token (the "cut by logit bias" mark); a finite bias only
    // moves it, and removes it only when a later sampler then cuts it.
    logitBias: z
      .record(
        z.string().regex(/^(0|[1-9][0-9]{0,8})$/, "keys are token ids written as plain integers"),
        z.union([z.number().min(-1e30).max(1e30), z.literal("-inf")]),
      )
      .refine((bias) => Object.keys(bias).length <= 1024, "at most 1024 token ids")
      .optional(),
    // GBNF, parsed by llama.cpp when the branch starts (a grammar that does not parse is a 400 then).
    grammar: z
      .string()
      .min(1)
      .max(256 * 1024)
      .optional(),
  })
  .strict();

export type SamplerSettings = z.infer<typeof samplerSettingsSchema>;

/** Alternatives captured per token, raw and processed. */
export const liveAlternatives = 8;

let cutBySupported: boolean | undefined;

/**
 * Whether this build's generate options take `cutBy` (which sampler removed each raw candidate). The
 * option is checked without decoding anything: an older build refuses it as unknown, and then the page
 * shows "—" in the "cut by" column.
 */
function supportsCutBy(): boolean {
  if (cutBySupported === undefined) {
    try {
      resolveGenerateOptions(
        Int32Array.of(0),
        { rawLogits: 2, cutBy: true } as GenerateTokensOptions,
        16,
        16,
      );
      cutBySupported = true;
    } catch {
      cutBySupported = false;
    }
  }
  return cutBySupported;
}

export function generateOptionsOf(settings: SamplerSettings): BranchGenerateOptions {
  // Only the settings given: an absent sampler is not in the chain at all.
  const { logitBias, ...rest } = settings;
  const samplers = Object.fromEntries(
    Object.entries(rest).filter(([name, value]) => name !== "maxTokens" && value !== undefined),
  ) as BranchGenerateOptions;
  const bias =
    logitBias === undefined
      ? undefined
      : new Map(
          Object.entries(logitBias).map(
            ([token, value]) => [Number(token), value === "-inf" ? Number.NEGATIVE_INFINITY : value] as const,
          ),
        );
  // A small queue: a held branch decodes at most this many tokens ahead of what the page has read.
  return {
    ...samplers,
    ...(bias !== undefined && { logitBias: bias }),
    logits: liveAlternatives,
    rawLogits: liveAlternatives,
    queueCapacity: 4,
    ...(supportsCutBy() && ({ cutBy: true } as BranchGenerateOptions)),
  };
}
