import type { LogitsStep, LogitsTrace } from "../../core/logits-trace.js";

interface WireTopLogprob {
  token?: unknown;
  logprob?: unknown;
}

interface WireLogprob extends WireTopLogprob {
  top_logprobs?: WireTopLogprob[] | null;
}

/**
 * OpenAI `logprobs.content` entries as a LogitsTrace. The protocol reports log-probabilities of the
 * distribution the server sampled from (after its temperature and filters), by token text; logits and
 * token ids are unknown, so those fields are null and the kind is "processed".
 */
export function logprobsToTrace(content: readonly unknown[], topK: number | null): LogitsTrace {
  const steps: LogitsStep[] = content.map((raw) => {
    const entry = (raw ?? {}) as WireLogprob;
    return {
      token: null,
      text: typeof entry.token === "string" ? entry.token : "",
      logprob: typeof entry.logprob === "number" ? entry.logprob : null,
      logSumExp: null,
      top: (entry.top_logprobs ?? []).map((alternative) => ({
        token: null,
        text: typeof alternative.token === "string" ? alternative.token : "",
        logit: null,
        logprob: typeof alternative.logprob === "number" ? alternative.logprob : Number.NEGATIVE_INFINITY,
      })),
    };
  });
  return { kind: "processed", source: "openai-logprobs", topK, vocabSize: null, steps };
}
