// One streamed token as the live page shows it: the same per-token data as the static page (raw and
// processed top-k, the chosen token's rank and probability), computed by the same report builder, plus
// which sampler removed each candidate when the native side reports it.
import type { LogitsStep, LogitsTrace } from "../../core/logits-trace.js";
import { buildInspectorReport, type InspectorToken } from "../inspector-report.js";

/** Candidate token id → the sampler that removed it ("top-k", "top-p", "grammar", …). */
export type RemovedBy = Record<string, string>;

export interface LiveToken extends InspectorToken {
  /** Present only when the native side recorded which sampler removed which candidate. */
  removedBy?: RemovedBy;
}

function traceOf(
  kind: "raw" | "processed",
  step: LogitsStep | null,
  topK: number,
  vocabSize: number,
): LogitsTrace | null {
  return step === null ? null : { kind, source: "llama.cpp", topK, vocabSize, steps: [step] };
}

/**
 * The "cut by" field is optional and its shape is the native helper's: a map or record of token id →
 * sampler name, or a list of { token, sampler|stage|by }. Anything else reads as absent.
 */
export function normalizeRemovedBy(value: unknown): RemovedBy | undefined {
  if (value === undefined || value === null) return undefined;
  const result: RemovedBy = {};
  const put = (token: unknown, sampler: unknown) => {
    if (
      (typeof token === "number" || typeof token === "string") &&
      typeof sampler === "string" &&
      sampler !== ""
    ) {
      result[String(token)] = sampler;
    }
  };
  if (value instanceof Map) for (const [token, sampler] of value) put(token, sampler);
  else if (Array.isArray(value)) {
    for (const entry of value) {
      if (typeof entry !== "object" || entry === null) continue;
      const record = entry as Record<string, unknown>;
      put(record.token ?? record.id, record.sampler ?? record.stage ?? record.by ?? record.removedBy);
    }
  } else if (typeof value === "object")
    for (const [token, sampler] of Object.entries(value)) put(token, sampler);
  return Object.keys(result).length > 0 ? result : undefined;
}

export function liveToken(
  index: number,
  processed: LogitsStep | null,
  raw: LogitsStep | null,
  topK: number,
  vocabSize: number,
  removedBy: unknown,
): LiveToken {
  const [token] = buildInspectorReport({
    modelId: "",
    prompt: "",
    processed: traceOf("processed", processed, topK, vocabSize),
    raw: traceOf("raw", raw, topK, vocabSize),
  }).tokens;
  const cut = normalizeRemovedBy(removedBy);
  return { ...token!, index, ...(cut !== undefined && { removedBy: cut }) };
}
