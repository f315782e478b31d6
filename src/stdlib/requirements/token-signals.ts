import { type LogitsStep, readableFullVector } from "../../core/logits-trace.js";
import type { StandardRequirement } from "./standard-requirement.js";
import { type TokenSignalEvent, tokenSignalRequirement } from "./token-signal-requirement.js";

export type TraceKind = "processed" | "raw";

function stepOf(event: TokenSignalEvent, trace: TraceKind): LogitsStep | null {
  return trace === "processed" ? event.processed : event.raw;
}

/** The chosen token's logprob at a step, or null when the step does not carry one. */
export function chosenLogprob(step: LogitsStep | null): number | null {
  if (step === null) return null;
  if (step.logprob !== null && !Number.isNaN(step.logprob)) return step.logprob;
  const entry = step.top.find((alternative) => alternative.token === step.token);
  return entry === undefined || Number.isNaN(entry.logprob) ? null : entry.logprob;
}

/**
 * The entropy of a step's distribution in nats. Exact from a full vector; from top-k alternatives the
 * tail (1 - their mass) counts as one outcome, which gives a lower bound of the true entropy (grouping
 * outcomes never raises entropy), so a fail on it is a fail on the exact value too.
 */
export function stepEntropy(step: LogitsStep): number | null {
  const full = readableFullVector(step);
  if (full !== undefined && step.logSumExp !== null) {
    let entropy = 0;
    for (const logit of full) {
      if (logit === Number.NEGATIVE_INFINITY) continue;
      const logprob = logit - step.logSumExp;
      entropy -= Math.exp(logprob) * logprob;
    }
    return entropy;
  }
  if (step.top.length === 0) return null;
  let entropy = 0;
  let mass = 0;
  for (const alternative of step.top) {
    if (!Number.isFinite(alternative.logprob)) continue;
    const probability = Math.exp(alternative.logprob);
    mass += probability;
    entropy -= probability * alternative.logprob;
  }
  const tail = 1 - mass;
  if (tail > 1e-12) entropy -= tail * Math.log(tail);
  return entropy;
}

/** Fails at the first token whose distribution has more than `maxNats` of entropy (the model is guessing). */
export function maxEntropyRequirement(
  maxNats: number,
  options: { trace?: TraceKind; topK?: number | "full"; description?: string } = {},
): StandardRequirement {
  const trace = options.trace ?? "processed";
  return tokenSignalRequirement(
    options.description ?? `every token's ${trace} entropy is at most ${maxNats} nats`,
    {
      traces: [trace],
      topK: options.topK ?? 20,
      check: (event) => {
        const step = stepOf(event, trace);
        const entropy = step === null ? null : stepEntropy(step);
        return entropy !== null && entropy > maxNats
          ? `entropy ${entropy.toFixed(3)} nats > ${maxNats}`
          : null;
      },
    },
  );
}

/** Fails at the first chosen token whose logprob is below `minLogprob`. */
export function minTokenLogprobRequirement(
  minLogprob: number,
  options: { trace?: TraceKind; description?: string } = {},
): StandardRequirement {
  const trace = options.trace ?? "processed";
  return tokenSignalRequirement(
    options.description ?? `every chosen token has a ${trace} logprob of at least ${minLogprob}`,
    {
      traces: [trace],
      check: (event) => {
        const logprob = chosenLogprob(stepOf(event, trace));
        return logprob !== null && logprob < minLogprob
          ? `logprob ${logprob.toFixed(3)} < ${minLogprob}`
          : null;
      },
    },
  );
}

/**
 * Fails as soon as the mean chosen-token logprob over the last `window` tokens drops below `minMean` (a
 * sliding window: one unlikely token does not fail a confident run, a stretch of them does).
 */
export function meanLogprobWindowRequirement(
  window: number,
  minMean: number,
  options: { trace?: TraceKind; description?: string } = {},
): StandardRequirement {
  if (!Number.isInteger(window) || window < 1) {
    throw new RangeError(`Expected a positive integer for window but received ${String(window)}.`);
  }
  const trace = options.trace ?? "processed";
  return tokenSignalRequirement(
    options.description ?? `the mean ${trace} logprob over any ${window} tokens is at least ${minMean}`,
    {
      traces: [trace],
      check: (event, previous) => {
        if (previous.length + 1 < window) return null;
        let sum = chosenLogprob(stepOf(event, trace)) ?? 0;
        for (let index = previous.length - window + 1; index < previous.length; index += 1) {
          sum += chosenLogprob(stepOf(previous[index]!, trace)) ?? 0;
        }
        const mean = sum / window;
        return mean < minMean ? `mean logprob ${mean.toFixed(3)} over ${window} tokens < ${minMean}` : null;
      },
    },
  );
}

/**
 * Fails at the first token whose probability under the processed distribution differs from its probability
 * under the raw one by more than `maxGap` (0 to 1): the sampler chain (grammar, penalties, bias, truncation)
 * is forcing a token the model itself did not favour.
 */
export function probabilityGapRequirement(
  maxGap: number,
  options: { description?: string } = {},
): StandardRequirement {
  return tokenSignalRequirement(
    options.description ?? `raw and processed token probabilities differ by at most ${maxGap}`,
    {
      traces: ["processed", "raw"],
      check: (event) => {
        const processed = chosenLogprob(event.processed);
        const raw = chosenLogprob(event.raw);
        if (processed === null || raw === null) return null;
        const gap = Math.abs(Math.exp(processed) - Math.exp(raw));
        return gap > maxGap ? `probability gap ${gap.toFixed(3)} > ${maxGap}` : null;
      },
    },
  );
}
