import { randomInt } from "node:crypto";
import { ContextOverflowError } from "../../core/errors/context-overflow-error.js";
import type { NativeGenerateOptions } from "./addon-types.js";
import { IncompatibleOptionsError } from "./errors/incompatible-options-error.js";
import { InvalidOptionError } from "./errors/invalid-option-error.js";
import { checkGrammarLimits } from "./grammar-limits.js";
import {
  float32Maximum,
  maximumAbsolutePenalty,
  maximumCaptureBytes,
  maximumRepeatPenalty,
  maximumSeed,
  minimumRepeatPenalty,
  minimumTemperature,
} from "./native-limits.js";
import {
  checkBoolean,
  checkInteger,
  checkNumber,
  checkSignal,
  checkString,
  rejectUnknownOptions,
} from "./native-option-checks.js";
import { PrefixPrefill } from "./prefix-prefill.js";

/** Logits capture for one vector kind: off, the top k (exact logprobs), or the whole vocabulary. */
export type LogitsCapture = false | number | "full";

/**
 * Options of one generation. Samplers that are not given are not in the chain at all, so with none of
 * them the processed logits equal the raw ones. The order of the processing chain is: logit bias,
 * penalties, grammar, top-k, typical-p, top-p, min-p, temperature; then the selector.
 */
export interface GenerateTokensOptions {
  /**
   * 0 to 3.4e38. 0, and anything below `minimumTemperature` (1e-3), selects greedy arg-max (no
   * temperature sampler): dividing float32 logits by a smaller temperature can overflow to Infinity and
   * make every probability NaN, and its draw is the arg-max anyway. Otherwise logits are divided by it,
   * then sampled.
   */
  readonly temperature?: number;
  /** Keep the k most likely tokens; 0 (off) to the vocabulary size. */
  readonly topK?: number;
  /** (0, 1]. */
  readonly topP?: number;
  /** [0, 1]. */
  readonly minP?: number;
  /** (0, 1]. */
  readonly typicalP?: number;
  /** 1e-6 to 1e6 (logits are divided or multiplied by it; beyond that float32 logits overflow). */
  readonly repeatPenalty?: number;
  /** -1e6 to 1e6. */
  readonly frequencyPenalty?: number;
  /** -1e6 to 1e6. */
  readonly presencePenalty?: number;
  /**
   * How many recent tokens (prompt included) the penalties look at: 0 (off) to the sequence context
   * size; -1 = the whole sequence context (passed to llama.cpp as that size, since it reads negatives as
   * 0, which turned penalties off). Default 64.
   */
  readonly penaltyLastN?: number;
  /** Added to the logits of these token ids; -Infinity bans a token; at most 3.4e38 (float32). */
  readonly logitBias?: ReadonlyMap<number, number> | Readonly<Record<number, number>>;
  /**
   * GBNF grammar; parsed before anything is decoded. At most 256 KiB and 1000 nested groups: llama.cpp
   * parses by recursion, and deeper grammars overflowed its stack (SIGSEGV).
   */
  readonly grammar?: string;
  readonly grammarRoot?: string;
  /**
   * Seed of the `dist` selector, 0 to 4294967294; random (and reported in the result) when missing.
   * 4294967295 is refused: it is llama.cpp's LLAMA_DEFAULT_SEED, which draws a random seed instead, so a
   * "fixed" seed of that value silently did not reproduce.
   */
  readonly seed?: number;
  /** Stop after this many generated tokens (finish reason "length"). */
  readonly maxTokens?: number;
  /** Keep going after an end-of-generation token. */
  readonly ignoreEos?: boolean;
  /** Processed logits (what the selector saw) per token. Default false. */
  readonly logits?: LogitsCapture;
  /** Raw LM-head logits per token. Default false. */
  readonly rawLogits?: LogitsCapture;
  /**
   * Record, per raw top-k candidate, which sampler stage removed it (TokenLogits.cutBy on rawLogits):
   * needs `rawLogits` as a top k of at most 255. Default false (no cost).
   */
  readonly cutBy?: boolean;
  /** Compute the log-probability of every prompt token (disables prefix reuse for this call). */
  readonly promptLogprobs?: boolean;
  /**
   * Events the native queue holds before decoding of this sequence pauses, 1 to 65536. Default 32. With a
   * "full" capture every slot holds a vocabulary row, so queueCapacity × vocabSize × 4 bytes per full
   * capture must stay within 1 GiB (IncompatibleOptionsError).
   */
  readonly queueCapacity?: number;
  /** Reuse KV cells of a common prompt prefix already in a sequence. Default true. */
  readonly reusePrefix?: boolean;
  /**
   * Compute each event's `logprob`. Default true; false leaves it NaN and spares greedy decoding without
   * captures a pass over the vocabulary per token (captured logits keep their own `logSumExp`).
   */
  readonly tokenLogprobs?: boolean;
  /**
   * Longest time, 0 to 1000 ms, a decoded token may wait in the native queue before a waiting reader is
   * woken, so that one wake-up delivers several tokens. Default 2. Each wake-up is an eventfd write and a
   * thread switch: on `tiny` on a 2-core VM, waking per token cost 9% of decode speed against 2 ms
   * (docs/native.md). The first token, the last one and a full queue are never held, and nothing is held
   * when a decode step takes more than half the delay (a large model, or a prefill joining the batch,
   * which also releases what was held). 0 wakes the reader for every token.
   */
  readonly deliveryDelayMs?: number;
  /**
   * A prefill of this context (LlamaContext.prefillPrefix) to wait for: this generation takes no sequence
   * until it has finished, then reuses the cells of the prefix its prompt shares with it.
   */
  readonly afterPrefill?: PrefixPrefill;
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
  "cutBy",
  "promptLogprobs",
  "queueCapacity",
  "reusePrefix",
  "tokenLogprobs",
  "deliveryDelayMs",
  "afterPrefill",
  "signal",
]);

export interface ResolvedGenerateOptions {
  readonly native: NativeGenerateOptions;
  /** The prefill this generation waits for (LlamaContext.prefillPrefix), if any. */
  readonly afterPrefill?: PrefixPrefill;
  readonly seed: number;
  readonly signal: AbortSignal | undefined;
  readonly queueCapacity: number;
  /** What the options were checked against: a context may start them only when it has the same sizes. */
  readonly vocabSize: number;
  readonly sequenceContextSize: number;
}

const maximumTopK = 1 << 16;
/** The addon indexes the raw top-k in a byte per vocabulary entry while it records cut-by labels. */
const maximumCutByTopK = 255;
const penaltyRange = { minimum: -maximumAbsolutePenalty, maximum: maximumAbsolutePenalty };

function checkSeed(seed: unknown): number {
  return checkInteger(
    "seed",
    seed,
    0,
    maximumSeed,
    `${maximumSeed + 1} is llama.cpp's "random seed" marker; pick another value`,
  );
}

/** -1 means the whole sequence context; llama.cpp itself would read it as 0 (penalties off). */
function resolvePenaltyLastN(value: unknown, sequenceContextSize: number): number {
  const resolved = checkInteger("penaltyLastN", value, -1, sequenceContextSize);
  return resolved === -1 ? sequenceContextSize : resolved;
}

/**
 * Bytes the stream's ring may hold in captured logits: per slot, 8 bytes per top-k entry (id and
 * value) and 4 per vocabulary entry of a full row, for raw and processed each. Rows are allocated as
 * slots fill, so this bounds what a consumer that stops reading can make the ring hold.
 */
function checkCaptureMemory(
  queueCapacity: number,
  vocabSize: number,
  captures: readonly { readonly topK: number; readonly full: boolean }[],
): void {
  const perSlot = captures.reduce(
    (sum, capture) => sum + (capture.full ? vocabSize * 4 : capture.topK * 8),
    0,
  );
  const bytes = queueCapacity * perSlot;
  if (perSlot === 0 || bytes <= maximumCaptureBytes) return;
  const largest = Math.max(1, Math.floor(maximumCaptureBytes / perSlot));
  throw new IncompatibleOptionsError(
    "queueCapacity",
    queueCapacity,
    `queueCapacity (${queueCapacity}) slots of captured logits (${perSlot} bytes each: 4 per vocabulary entry ` +
      `of a "full" row, 8 per top-k entry) may hold ${(bytes / 1024 ** 3).toFixed(1)} GiB when the consumer ` +
      "stops reading, more than the 1 GiB allowed",
    `use queueCapacity <= ${largest}, or capture fewer logits (a smaller top k)`,
  );
}

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
  else throw new InvalidOptionError("logitBias", "a Map or record of token id to bias", value);
  const tokens = new Int32Array(entries.length);
  const values = new Float32Array(entries.length);
  entries.forEach(([key, bias], index) => {
    const token = typeof key === "string" ? Number(key) : key;
    tokens[index] = checkInteger(`logitBias key ${String(key)}`, token, 0, vocabSize - 1);
    // A bias travels as float32: above its maximum it became +Infinity, and Infinity - Infinity NaN.
    if (typeof bias !== "number" || Number.isNaN(bias) || bias > float32Maximum) {
      throw new InvalidOptionError(
        `logitBias[${String(key)}]`,
        `a number <= ${float32Maximum} or -Infinity`,
        bias,
      );
    }
    values[index] = bias;
  });
  return { tokens, values };
}

/** Validates everything before any native work; throws InvalidOptionError or ContextOverflowError. */
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
  if (prompt.length === 0) throw new InvalidOptionError("promptTokens", "at least one token", "[]");
  const resolvedMaxTokens =
    maxTokens === undefined ? 0 : checkInteger("maxTokens", maxTokens, 1, Number.MAX_SAFE_INTEGER);
  if (prompt.length >= sequenceContextSize)
    throw new ContextOverflowError(prompt.length, sequenceContextSize);
  if (resolvedMaxTokens > 0 && prompt.length + resolvedMaxTokens > sequenceContextSize) {
    throw new ContextOverflowError(prompt.length, sequenceContextSize, resolvedMaxTokens);
  }
  const resolvedSeed = seed === undefined ? randomInt(0, maximumSeed + 1) : checkSeed(seed);
  const raw = checkCapture("rawLogits", options.rawLogits, vocabSize);
  const processed = checkCapture("logits", options.logits, vocabSize);
  const cutBy = options.cutBy === undefined ? false : checkBoolean("cutBy", options.cutBy);
  if (cutBy && (raw.topK === 0 || raw.topK > maximumCutByTopK)) {
    throw new IncompatibleOptionsError(
      "cutBy",
      cutBy,
      `cutBy labels the raw top-k candidates, but rawLogits is ${JSON.stringify(options.rawLogits ?? false)}`,
      `set rawLogits to a top k between 1 and ${maximumCutByTopK}, or leave cutBy off`,
    );
  }
  const bias = checkLogitBias(options.logitBias, vocabSize);
  const queueCapacity =
    options.queueCapacity === undefined
      ? 32
      : checkInteger("queueCapacity", options.queueCapacity, 1, 1 << 16);
  checkCaptureMemory(queueCapacity, vocabSize, [raw, processed]);
  const resolvedTemperature =
    temperature === undefined
      ? undefined
      : checkNumber("temperature", temperature, { minimum: 0, maximum: float32Maximum });
  const greedy = resolvedTemperature !== undefined && resolvedTemperature < minimumTemperature;
  if (grammar !== undefined) checkGrammarLimits(checkString("grammar", grammar));

  const native: NativeGenerateOptions = {
    tokens: prompt,
    greedy,
    seed: resolvedSeed,
    ...(resolvedTemperature !== undefined && !greedy && { temperature: resolvedTemperature }),
    ...(topK !== undefined && { topK: checkInteger("topK", topK, 0, vocabSize) }),
    ...(topP !== undefined && {
      topP: checkNumber("topP", topP, { minimum: 0, maximum: 1, exclusiveMinimum: true }),
    }),
    ...(minP !== undefined && { minP: checkNumber("minP", minP, { minimum: 0, maximum: 1 }) }),
    ...(typicalP !== undefined && {
      typicalP: checkNumber("typicalP", typicalP, { minimum: 0, maximum: 1, exclusiveMinimum: true }),
    }),
    ...(penaltyLastN !== undefined && {
      penaltyLastN: resolvePenaltyLastN(penaltyLastN, sequenceContextSize),
    }),
    ...(repeatPenalty !== undefined && {
      repeatPenalty: checkNumber("repeatPenalty", repeatPenalty, {
        minimum: minimumRepeatPenalty,
        maximum: maximumRepeatPenalty,
      }),
    }),
    ...(frequencyPenalty !== undefined && {
      frequencyPenalty: checkNumber("frequencyPenalty", frequencyPenalty, penaltyRange),
    }),
    ...(presencePenalty !== undefined && {
      presencePenalty: checkNumber("presencePenalty", presencePenalty, penaltyRange),
    }),
    ...(bias !== undefined && { logitBiasTokens: bias.tokens, logitBiasValues: bias.values }),
    ...(grammar !== undefined && { grammar: checkString("grammar", grammar) }),
    ...(grammarRoot !== undefined && { grammarRoot: checkString("grammarRoot", grammarRoot) }),
    rawTopK: raw.topK,
    rawFull: raw.full,
    processedTopK: processed.topK,
    processedFull: processed.full,
    ...(cutBy && { recordCutBy: true }),
    maxTokens: resolvedMaxTokens,
    ignoreEos: options.ignoreEos === undefined ? false : checkBoolean("ignoreEos", options.ignoreEos),
    promptLogprobs:
      options.promptLogprobs === undefined ? false : checkBoolean("promptLogprobs", options.promptLogprobs),
    reusePrefix: options.reusePrefix === undefined ? true : checkBoolean("reusePrefix", options.reusePrefix),
    ...(options.tokenLogprobs !== undefined && {
      tokenLogprobs: checkBoolean("tokenLogprobs", options.tokenLogprobs),
    }),
    ...(options.deliveryDelayMs !== undefined && {
      deliveryDelayMs: checkNumber("deliveryDelayMs", options.deliveryDelayMs, { minimum: 0, maximum: 1000 }),
    }),
    queueCapacity,
  };
  if (grammar !== undefined && grammar.trim() === "") {
    throw new InvalidOptionError("grammar", "a non-empty GBNF grammar", grammar);
  }
  if (options.afterPrefill !== undefined && !(options.afterPrefill instanceof PrefixPrefill)) {
    throw new InvalidOptionError(
      "afterPrefill",
      "a PrefixPrefill from LlamaContext.prefillPrefix",
      options.afterPrefill,
    );
  }
  return {
    native,
    ...(options.afterPrefill !== undefined && { afterPrefill: options.afterPrefill }),
    seed: resolvedSeed,
    signal: checkSignal("signal", options.signal),
    queueCapacity,
    vocabSize,
    sequenceContextSize,
  };
}
