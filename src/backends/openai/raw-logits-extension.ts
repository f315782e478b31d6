import type { LogitsAlternative, LogitsStep, LogitsTrace } from "../../core/logits-trace.js";

/**
 * tessera serve's response extension for raw (pre-sampler) logits: on each choice (or streamed choice),
 * `tessera_raw_logits: { top_k, vocab_size, content: [{ token_id, token, logit, logprob, log_sum_exp, top }] }`.
 */
export interface RawLogitsExtension {
  top_k: number | null;
  vocab_size: number | null;
  content: RawLogitsEntry[];
}

export interface RawLogitsEntry {
  token_id: number | null;
  token: string;
  logprob: number | null;
  log_sum_exp: number | null;
  top: Array<{ token_id: number | null; token: string; logit: number | null; logprob: number }>;
}

/** A raw LogitsTrace in the extension's wire shape. */
export function rawLogitsToExtension(trace: LogitsTrace, fromStep = 0): RawLogitsExtension {
  return {
    top_k: trace.topK,
    vocab_size: trace.vocabSize,
    content: trace.steps.slice(fromStep).map((step) => ({
      token_id: step.token,
      token: step.text,
      logprob: step.logprob,
      log_sum_exp: step.logSumExp,
      top: step.top.map((alternative) => ({
        token_id: alternative.token,
        token: alternative.text,
        logit: alternative.logit,
        logprob: alternative.logprob,
      })),
    })),
  };
}

/** The extension back as a raw LogitsTrace; null when the server sent none (any server but tessera serve). */
export function rawLogitsFromExtension(value: unknown): LogitsTrace | null {
  const parts = (Array.isArray(value) ? value : [value]).filter(
    (part): part is RawLogitsExtension =>
      typeof part === "object" && part !== null && Array.isArray((part as RawLogitsExtension).content),
  );
  if (parts.length === 0) return null;
  const steps: LogitsStep[] = parts.flatMap((part) =>
    part.content.map((entry) => ({
      token: entry.token_id,
      text: entry.token,
      logprob: entry.logprob,
      logSumExp: entry.log_sum_exp,
      top: entry.top.map(
        (alternative): LogitsAlternative => ({
          token: alternative.token_id,
          text: alternative.token,
          logit: alternative.logit,
          logprob: alternative.logprob,
        }),
      ),
    })),
  );
  return {
    kind: "raw",
    source: "tessera-serve",
    topK: parts[0]!.top_k,
    vocabSize: parts[0]!.vocab_size,
    steps,
  };
}
