// The data behind the inspector page: one entry per generated token, with its raw and processed
// distributions reduced to what the page shows (probability, rank, entropy, top alternatives). Built
// from the LogitsTrace objects a backend fills, so the page never sees a backend type.
import { type LogitsStep, type LogitsTrace, readableFullVector } from "../core/logits-trace.js";
import { InspectorTraceMismatchError } from "./errors/inspector-trace-mismatch-error.js";

/**
 * One alternative as the page shows it; `logprob` null means the token was cut (-Infinity). A
 * distribution also lists, as cut, the other distribution's alternatives that its sampler removed
 * (when that is known: the survivors were fewer than the alternatives captured, or the vector is full).
 */
export interface InspectorAlternative {
  token: number | null;
  text: string;
  logprob: number | null;
}

/** The chosen token under one distribution (raw or processed). */
export interface InspectorDistribution {
  /** Log-probability of the chosen token; null when unknown or cut. */
  logprob: number | null;
  /** 1-based rank of the chosen token; null when it is not among the known alternatives. */
  rank: number | null;
  /** Entropy in bits; exact with full vectors, otherwise a lower bound from the top-k (see entropyLowerBound). */
  entropyBits: number | null;
  entropyExact: boolean;
  top: InspectorAlternative[];
}

export interface InspectorToken {
  index: number;
  token: number | null;
  text: string;
  processed: InspectorDistribution | null;
  raw: InspectorDistribution | null;
}

export interface InspectorReport {
  title: string;
  modelId: string;
  prompt: string;
  /** Sampler settings as the user gave them, shown verbatim. */
  settings: Record<string, string | number | boolean>;
  /** The processing samplers and the selector, in the order they ran ("top-k 40 → temperature 0.8 → …"). */
  samplerChain: string | null;
  generatedAt: string;
  topK: number | null;
  tokens: InspectorToken[];
}

export interface InspectorReportInput {
  modelId: string;
  prompt: string;
  processed: LogitsTrace | null;
  raw: LogitsTrace | null;
  settings?: Record<string, string | number | boolean>;
  samplerChain?: string;
  title?: string;
  /** Text of a token id, for alternatives known only by id (full vectors). */
  tokenText?: (token: number) => string;
  /** Defaults to now; tests pass a fixed date. */
  generatedAt?: Date;
}

/** Most alternatives kept per step for the page (full vectors are reduced to this many). */
export const inspectorMaxAlternatives = 20;

const log2 = Math.log(2);

function finiteOrNull(value: number | null | undefined): number | null {
  return value === null || value === undefined || !Number.isFinite(value) ? null : value;
}

/** Entropy (bits) of a distribution given as log-probabilities whose mass may not sum to 1. */
function entropyFromLogprobs(logprobs: Iterable<number>): { bits: number; mass: number } {
  let nats = 0;
  let mass = 0;
  for (const logprob of logprobs) {
    if (!Number.isFinite(logprob)) continue;
    const probability = Math.exp(logprob);
    nats -= probability * logprob;
    mass += probability;
  }
  return { bits: nats / log2, mass };
}

function fullLogSumExp(full: Float32Array): number {
  let maximum = -Infinity;
  for (const value of full) if (value > maximum) maximum = value;
  let sum = 0;
  for (const value of full) if (Number.isFinite(value)) sum += Math.exp(value - maximum);
  return maximum + Math.log(sum);
}

function fromFullVector(
  step: LogitsStep,
  full: Float32Array,
  tokenText?: (token: number) => string,
): InspectorDistribution {
  const logSumExp = step.logSumExp ?? fullLogSumExp(full);
  const logprobOf = (value: number) => value - logSumExp;
  let nats = 0;
  for (const value of full) {
    if (!Number.isFinite(value)) continue;
    const logprob = logprobOf(value);
    nats -= Math.exp(logprob) * logprob;
  }
  // Top alternatives by a partial selection: keep a small sorted list instead of sorting the vocabulary.
  const best: Array<{ id: number; value: number }> = [];
  for (let id = 0; id < full.length; id++) {
    const value = full[id]!;
    if (!Number.isFinite(value)) continue;
    if (best.length === inspectorMaxAlternatives && value <= best[best.length - 1]!.value) continue;
    let position = best.length;
    while (position > 0 && best[position - 1]!.value < value) position--;
    best.splice(position, 0, { id, value });
    if (best.length > inspectorMaxAlternatives) best.pop();
  }
  const textById = new Map(step.top.map((alternative) => [alternative.token, alternative.text]));
  const chosen = step.token === null ? undefined : full[step.token];
  let rank: number | null = null;
  if (chosen !== undefined && Number.isFinite(chosen)) {
    rank = 1;
    for (const value of full) if (value > chosen) rank++;
  }
  return {
    logprob: chosen === undefined || !Number.isFinite(chosen) ? null : logprobOf(chosen),
    rank,
    entropyBits: nats / log2,
    entropyExact: true,
    top: best.map(({ id, value }) => ({
      token: id,
      text: textById.get(id) ?? (id === step.token ? step.text : (tokenText?.(id) ?? `#${id}`)),
      logprob: logprobOf(value),
    })),
  };
}

/**
 * A lower bound of the entropy (bits) when only the top-k are known: the tail mass is packed as tightly as
 * the ranking allows (every other token is at most as likely as the k-th), which gives the least entropy
 * the distribution can have. Without a vocabulary size the tail counts as one token.
 */
function entropyLowerBound(
  logprobs: ReadonlyArray<number>,
  vocabSize: number | null,
): { bits: number; exact: boolean } {
  const { bits, mass } = entropyFromLogprobs(logprobs);
  const tail = Math.max(0, 1 - mass);
  if (tail <= 1e-6) return { bits, exact: true };
  const finite = logprobs.filter((logprob) => Number.isFinite(logprob));
  const smallest = finite.length > 0 ? Math.exp(Math.min(...finite)) : 0;
  const others = vocabSize === null ? 1 : Math.max(1, vocabSize - finite.length);
  let tailNats: number;
  if (smallest <= 0 || vocabSize === null) tailNats = -tail * Math.log(tail);
  else {
    const fullTokens = Math.min(others, Math.floor(tail / smallest));
    const remainder = tail - fullTokens * smallest;
    tailNats =
      -fullTokens * smallest * Math.log(smallest) - (remainder > 1e-15 ? remainder * Math.log(remainder) : 0);
  }
  return { bits: bits + tailNats / log2, exact: false };
}

function fromTopK(step: LogitsStep, vocabSize: number | null): InspectorDistribution {
  const top = step.top.slice(0, inspectorMaxAlternatives).map((alternative) => ({
    token: alternative.token,
    text: alternative.text,
    logprob: finiteOrNull(alternative.logprob),
  }));
  const index = step.top.findIndex((alternative) =>
    step.token !== null && alternative.token !== null
      ? alternative.token === step.token
      : alternative.text === step.text,
  );
  const entropy =
    step.top.length > 0
      ? entropyLowerBound(
          step.top.map((alternative) => alternative.logprob),
          vocabSize,
        )
      : null;
  const logprob = finiteOrNull(step.logprob) ?? (index >= 0 ? finiteOrNull(step.top[index]!.logprob) : null);
  return {
    logprob,
    rank: index >= 0 ? index + 1 : null,
    entropyBits: entropy?.bits ?? null,
    entropyExact: entropy?.exact ?? false,
    top,
  };
}

function distributionOf(
  step: LogitsStep | undefined,
  trace: LogitsTrace | null,
  tokenText: ((token: number) => string) | undefined,
): InspectorDistribution | null {
  if (step === undefined) return null;
  const full = readableFullVector(step);
  return full !== undefined
    ? fromFullVector(step, full, tokenText)
    : fromTopK(step, trace?.vocabSize ?? null);
}

const keyOf = (alternative: InspectorAlternative) =>
  alternative.token !== null ? `id:${alternative.token}` : `text:${alternative.text}`;

/**
 * Adds to `distribution` the alternatives of `other` it does not list, where their fate in it is known:
 * with a full vector, their value (cut when -Infinity); with top-k, cut when the survivors were fewer
 * than the alternatives captured (top-k 3 with 5 captured keeps 3: everything else was removed).
 * Otherwise they stay unknown: below the captured top-k, not necessarily cut.
 */
function addKnownAlternatives(
  distribution: InspectorDistribution | null,
  step: LogitsStep | undefined,
  trace: LogitsTrace | null,
  other: InspectorDistribution | null,
): void {
  if (distribution === null || step === undefined || trace === null || other === null) return;
  const listed = new Set(distribution.top.map(keyOf));
  const survivorsAllListed =
    (trace.topK !== null && step.top.length < trace.topK) ||
    step.top.some((alternative) => !Number.isFinite(alternative.logprob));
  const full = readableFullVector(step);
  const logSumExp = full === undefined ? null : (step.logSumExp ?? fullLogSumExp(full));
  for (const alternative of other.top) {
    if (listed.has(keyOf(alternative))) continue;
    if (full !== undefined && alternative.token !== null && logSumExp !== null) {
      const value = full[alternative.token];
      if (value === undefined) continue;
      distribution.top.push({ ...alternative, logprob: finiteOrNull(value - logSumExp) });
    } else if (survivorsAllListed) distribution.top.push({ ...alternative, logprob: null });
  }
}

/** Joins the raw and processed traces of one generation into the page's data. */
export function buildInspectorReport(input: InspectorReportInput): InspectorReport {
  const { processed, raw } = input;
  if (processed === null && raw === null) {
    throw new InspectorTraceMismatchError("neither processed nor raw logits were captured");
  }
  if (processed !== null && raw !== null && processed.steps.length !== raw.steps.length) {
    throw new InspectorTraceMismatchError(
      `the processed trace has ${processed.steps.length} steps but the raw trace has ${raw.steps.length}`,
    );
  }
  const reference = (processed ?? raw)!;
  const tokens = reference.steps.map((step, index): InspectorToken => {
    const rawStep = raw?.steps[index];
    const processedStep = processed?.steps[index];
    if (rawStep !== undefined && processedStep !== undefined && rawStep.token !== processedStep.token) {
      throw new InspectorTraceMismatchError(
        `step ${index} chose token ${processedStep.token} in the processed trace but ${rawStep.token} in the raw one`,
      );
    }
    const processedDistribution = distributionOf(processedStep, processed, input.tokenText);
    const rawDistribution = distributionOf(rawStep, raw, input.tokenText);
    addKnownAlternatives(processedDistribution, processedStep, processed, rawDistribution);
    return {
      index,
      token: step.token,
      text: step.text,
      processed: processedDistribution,
      raw: rawDistribution,
    };
  });
  return {
    title: input.title ?? "Tessera logits inspector",
    modelId: input.modelId,
    prompt: input.prompt,
    settings: input.settings ?? {},
    samplerChain: input.samplerChain ?? null,
    generatedAt: (input.generatedAt ?? new Date()).toISOString(),
    topK: reference.topK,
    tokens,
  };
}
