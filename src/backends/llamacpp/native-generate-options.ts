import { randomInt } from "node:crypto";
import { ContextOverflowError } from "./errors/context-overflow-error.js";
import { InvalidSamplerOptionError } from "./errors/invalid-sampler-option-error.js";
import type { NativeGenerateOptions } from "./native-addon.js";
import {
  checkBoolean,
  checkInteger,
  checkNumber,
  checkSignal,
  checkString,
  rejectUnknownOptions,
} from "./native-option-checks.js";

/** Logits capture for one vector kind: off, the top k (exact logprobs), or the whole vocabulary. */
export type LogitsCapture = false | number | "full";

/**
 * Options of one generation. Samplers that are not given are not in the chain at all, so with none of
 * them the processed logits equal the raw ones. The order of the processing chain is: logit bias,
 * penalties, grammar, top-k, typical-p, top-p, min-p, temperature; then the selector.
 */
export interface GenerateTokensOptions {
  /** 0 selects greedy arg-max (no temperature sampler); otherwise logits are divided by it, then sampled. */
  readonly temperature?: number;
  readonly topK?: number;
  readonly topP?: number;
  readonly minP?: number;
  readonly typicalP?: number;
  readonly repeatPenalty?: number;
  readonly frequencyPenalty?: number;
  readonly presencePenalty?: number;
  /** How many recent tokens (prompt included) the penalties look at; default 64, -1 = the whole context. */
  readonly penaltyLastN?: number;
  /** Added to the logits of these token ids; -Infinity bans a token. */
  readonly logitBias?: ReadonlyMap<number, number> | Readonly<Record<number, number>>;
  /** GBNF grammar; parsed before anything is decoded. */
  readonly grammar?: string;
  readonly grammarRoot?: string;
  /** Seed of the `dist` selector; random (and reported in the result) when missing. */
  readonly seed?: number;
  /** Stop after this many generated tokens (finish reason "length"). */
  readonly maxTokens?: number;
  /** Keep going after an end-of-generation token. */
  readonly ignoreEos?: boolean;
  /** Processed logits (what the selector saw) per token. Default false. */
  readonly logits?: LogitsCapture;
  /** Raw LM-head logits per token. Default false. */
  readonly rawLogits?: LogitsCapture;
  /** Compute the log-probability of every prompt token (disables prefix reuse for this call). */
  readonly promptLogprobs?: boolean;
  /** Events the native queue holds before decoding of this sequence pauses. Default 32. */
  readonly queueCapacity?: number;
  /** Reuse KV cells of a common prompt prefix already in a sequence. Default true. */
  readonly reusePrefix?: boolean;
  readonly signal?: AbortSignal;
}

const knownOptions: ReadonlySet<string> = new Set([
  "temperature",
  "topK",
  "topP",
  "minP",
  "typicalP",
  "repeatPenalty",
  "frequencyPenalty",
  "presencePenalty",
  "penaltyLastN",
  "logitBias",
  "grammar",
  "grammarRoot",
  "seed",
  "maxTokens",
  "ignoreEos",
  "logits",
  "rawLogits",
  "promptLogprobs",
  "queueCapacity",
  "reusePrefix",
  "signal",
]);

export interface ResolvedGenerateOptions {
  readonly native: NativeGenerateOptions;
  readonly seed: number;
  readonly signal: AbortSignal | undefined;
  readonly queueCapacity: number;
}

const maximumTopK = 1 << 16;

function checkCapture(name: string, value: unknown, vocabSize: number): { topK: number; full: boolean } {
  if (value === undefined || value === false) return { topK: 0, full: false };
  if (value === "full") return { topK: 0, full: true };
  const topK = checkInteger(name, value, 1, Math.min(vocabSize, maximumTopK));
  return { topK, full: false };
}

function checkLogitBias(
  value: unknown,
  vocabSize: number,
): { tokens: Int32Array; values: Float32Array } | undefined {
  if (value === undefined) return undefined;
  let entries: [unknown, unknown][];
  if (value instanceof Map) entries = [...value.entries()];
  else if (typeof value === "object" && value !== null && !Array.isArray(value))
    entries = Object.entries(value);
  else throw new InvalidSamplerOptionError("logitBias", "a Map or record of token id to bias", value);
  const tokens = new Int32Array(entries.length);
  const values = new Float32Array(entries.length);
  entries.forEach(([key, bias], index) => {
    const token = typeof key === "string" ? Number(key) : key;
    tokens[index] = checkInteger(`logitBias key ${String(key)}`, token, 0, vocabSize - 1);
    if (typeof bias !== "number" || Number.isNaN(bias) || bias === Number.POSITIVE_INFINITY) {
      throw new InvalidSamplerOptionError(`logitBias[${String(key)}]`, "a number or -Infinity", bias);
    }
    values[index] = bias;
  });
  return { tokens, values };
}

/** Validates everything before any native work; throws InvalidSamplerOptionError or ContextOverflowError. */
export function resolveGenerateOptions(
  prompt: Int32Array,
  options: GenerateTokensOptions,
  vocabSize: number,
  sequenceContextSize: number,
): ResolvedGenerateOptions {
  rejectUnknownOptions("generate options", options, knownOptions);
  const {
    temperature,
    topK,
    topP,
    minP,
    typicalP,
    repeatPenalty,
    frequencyPenalty,
    presencePenalty,
    penaltyLastN,
    grammar,
    grammarRoot,
    seed,
    maxTokens,
  } = options;
  if (prompt.length === 0) throw new InvalidSamplerOptionError("promptTokens", "at least one token", "[]");
  const resolvedMaxTokens =
    maxTokens === undefined ? 0 : checkInteger("maxTokens", maxTokens, 1, Number.MAX_SAFE_INTEGER);
  if (prompt.length >= sequenceContextSize)
    throw new ContextOverflowError(prompt.length, sequenceContextSize);
  if (resolvedMaxTokens > 0 && prompt.length + resolvedMaxTokens > sequenceContextSize) {
    throw new ContextOverflowError(prompt.length, sequenceContextSize, resolvedMaxTokens);
  }
  const resolvedSeed =
    seed === undefined ? randomInt(0, 2 ** 32 - 1) : checkInteger("seed", seed, 0, 2 ** 32 - 1);
  const raw = checkCapture("rawLogits", options.rawLogits, vocabSize);
  const processed = checkCapture("logits", options.logits, vocabSize);
  const bias = checkLogitBias(options.logitBias, vocabSize);
  const queueCapacity =
    options.queueCapacity === undefined
      ? 32
      : checkInteger("queueCapacity", options.queueCapacity, 1, 1 << 16);
  const greedy = temperature !== undefined && checkNumber("temperature", temperature, { minimum: 0 }) === 0;

  const native: NativeGenerateOptions = {
    tokens: prompt,
    greedy,
    seed: resolvedSeed,
    ...(temperature !== undefined && !greedy && { temperature }),
    ...(topK !== undefined && { topK: checkInteger("topK", topK, 0, vocabSize) }),
    ...(topP !== undefined && {
      topP: checkNumber("topP", topP, { minimum: 0, maximum: 1, exclusiveMinimum: true }),
    }),
    ...(minP !== undefined && { minP: checkNumber("minP", minP, { minimum: 0, maximum: 1 }) }),
    ...(typicalP !== undefined && {
      typicalP: checkNumber("typicalP", typicalP, { minimum: 0, maximum: 1, exclusiveMinimum: true }),
    }),
    ...(penaltyLastN !== undefined && {
      penaltyLastN: checkInteger("penaltyLastN", penaltyLastN, -1, 1 << 20),
    }),
    ...(repeatPenalty !== undefined && {
      repeatPenalty: checkNumber("repeatPenalty", repeatPenalty, { minimum: 0, exclusiveMinimum: true }),
    }),
    ...(frequencyPenalty !== undefined && {
      frequencyPenalty: checkNumber("frequencyPenalty", frequencyPenalty),
    }),
    ...(presencePenalty !== undefined && {
      presencePenalty: checkNumber("presencePenalty", presencePenalty),
    }),
    ...(bias !== undefined && { logitBiasTokens: bias.tokens, logitBiasValues: bias.values }),
    ...(grammar !== undefined && { grammar: checkString("grammar", grammar) }),
    ...(grammarRoot !== undefined && { grammarRoot: checkString("grammarRoot", grammarRoot) }),
    rawTopK: raw.topK,
    rawFull: raw.full,
    processedTopK: processed.topK,
    processedFull: processed.full,
    maxTokens: resolvedMaxTokens,
    ignoreEos: options.ignoreEos === undefined ? false : checkBoolean("ignoreEos", options.ignoreEos),
    promptLogprobs:
      options.promptLogprobs === undefined ? false : checkBoolean("promptLogprobs", options.promptLogprobs),
    reusePrefix: options.reusePrefix === undefined ? true : checkBoolean("reusePrefix", options.reusePrefix),
    queueCapacity,
  };
  if (grammar !== undefined && grammar.trim() === "") {
    throw new InvalidSamplerOptionError("grammar", "a non-empty GBNF grammar", grammar);
  }
  return { native, seed: resolvedSeed, signal: checkSignal("signal", options.signal), queueCapacity };
}
