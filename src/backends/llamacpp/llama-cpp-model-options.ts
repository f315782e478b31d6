import { z } from "zod";
import { extendModelOptionsSchema, type ModelOptions } from "../../core/model-options.js";
import type { GenerateTokensOptions } from "./native-generate-options.js";
import type { ToolChoice } from "./tool-call-format.js";

const finiteOrMinusInfinity = z.custom<number>(
  (value) => typeof value === "number" && !Number.isNaN(value) && value !== Number.POSITIVE_INFINITY,
  "expected a number or -Infinity",
);

/** Options only the llama.cpp backend understands, on top of the common ones. */
export const llamaCppModelOptionsShape = {
  /** Keep generating after an end-of-generation token (until maxNewTokens or the context is full). */
  ignoreEos: z.boolean().optional(),
  /**
   * Send the action's text as the whole prompt: BOS (when the model adds one) and the text, tokenized
   * without special tokens, no chat template. For text continuation (tessera serve's /v1/completions);
   * refused with a chat history or offered tools, which need the template.
   */
  rawPrompt: z.boolean().optional(),
  /** A GBNF grammar constraining the output; cannot be combined with `format` or offered tools. */
  grammar: z.string().min(1).optional(),
  /** How offered tools may be used: "auto" (text or calls, default), "required" (calls only), "none". */
  toolChoice: z.enum(["auto", "required", "none"]).optional(),
  /** How many recent tokens the repetition penalties look at (default 64, -1 = the whole context). */
  penaltyLastN: z.number().int().min(-1).optional(),
  /** Seeds of llama.cpp's sampler are unsigned 32-bit integers. */
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  stopSequences: z.array(z.string().min(1)).max(64).optional(),
  /**
   * Mark, on each raw logits step, which sampler stage removed each top candidate (`removedBy`: top-k,
   * top-p, min-p, typical-p, grammar, penalties, logit-bias; null = survived). Needs `rawLogits` as a top k
   * of at most 255. Off by default, and free when off.
   */
  cutBy: z.boolean().optional(),
  /** Token id (as a string key) to additive bias; -Infinity bans a token. */
  logitBias: z.record(z.string().regex(/^\d+$/, "expected a token id"), finiteOrMinusInfinity).optional(),
};

export const llamaCppModelOptionsSchema = extendModelOptionsSchema(llamaCppModelOptionsShape);

/** Model options of the llama.cpp backend: the common ones plus ignoreEos, grammar, toolChoice, penaltyLastN. */
export type LlamaCppModelOptions = ModelOptions & {
  ignoreEos?: boolean;
  rawPrompt?: boolean;
  grammar?: string;
  toolChoice?: ToolChoice;
  penaltyLastN?: number;
  cutBy?: boolean;
};

/** The native generation options for validated model options (stop sequences are handled in TypeScript). */
export function toTokenOptions(
  options: LlamaCppModelOptions,
  extra: { grammar?: string | undefined; signal?: AbortSignal | undefined },
): GenerateTokensOptions {
  const logitBias =
    options.logitBias === undefined
      ? undefined
      : new Map(Object.entries(options.logitBias).map(([token, bias]) => [Number(token), bias] as const));
  return {
    ...(options.temperature !== undefined && { temperature: options.temperature }),
    ...(options.topK !== undefined && { topK: options.topK }),
    ...(options.topP !== undefined && { topP: options.topP }),
    ...(options.minP !== undefined && { minP: options.minP }),
    ...(options.typicalP !== undefined && { typicalP: options.typicalP }),
    ...(options.repeatPenalty !== undefined && { repeatPenalty: options.repeatPenalty }),
    ...(options.frequencyPenalty !== undefined && { frequencyPenalty: options.frequencyPenalty }),
    ...(options.presencePenalty !== undefined && { presencePenalty: options.presencePenalty }),
    ...(options.penaltyLastN !== undefined && { penaltyLastN: options.penaltyLastN }),
    ...(logitBias !== undefined && { logitBias }),
    ...(extra.grammar !== undefined && { grammar: extra.grammar }),
    ...(options.seed !== undefined && { seed: options.seed }),
    ...(options.maxNewTokens !== undefined && { maxTokens: options.maxNewTokens }),
    ...(options.ignoreEos !== undefined && { ignoreEos: options.ignoreEos }),
    ...(options.logits !== undefined && options.logits !== false && { logits: options.logits }),
    ...(options.rawLogits !== undefined && options.rawLogits !== false && { rawLogits: options.rawLogits }),
    ...(options.cutBy !== undefined && { cutBy: options.cutBy }),
    ...(extra.signal !== undefined && { signal: extra.signal }),
  };
}
