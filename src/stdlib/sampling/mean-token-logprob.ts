import type { ModelOutputThunk } from "../../core/model-output-thunk.js";

/**
 * The mean log-probability of the generated tokens, from the processed trace (what the sampler drew from)
 * or else the raw one; null when the thunk carries neither. An answer with no scored tokens gets -Infinity,
 * so an empty answer is never preferred.
 */
export function meanTokenLogprob(thunk: ModelOutputThunk<unknown>): number | null {
  const trace = thunk.generation.logits ?? thunk.generation.rawLogits;
  if (trace === null) return null;
  let sum = 0;
  let count = 0;
  for (const step of trace.steps) {
    const logprob = step.logprob ?? logprobFromTop(step.token, step.top, step.logSumExp);
    if (logprob === null || !Number.isFinite(logprob)) continue;
    sum += logprob;
    count += 1;
  }
  return count === 0 ? Number.NEGATIVE_INFINITY : sum / count;
}

function logprobFromTop(
  token: number | null,
  top: ReadonlyArray<{ token: number | null; logit: number | null; logprob: number }>,
  logSumExp: number | null,
): number | null {
  const entry = top.find((alternative) => alternative.token === token);
  if (entry === undefined) return null;
  if (entry.logit !== null && logSumExp !== null) return entry.logit - logSumExp;
  return entry.logprob;
}
