// The compact per-token table of `tessera run --logits k`: the chosen token, its probability under the
// processed (what the sampler saw) and raw (LM head) distributions, and the top-k of each.
import type { LogitsAlternative, LogitsStep } from "../core/logits-trace.js";

function quoted(text: string, width: number): string {
  const shown = JSON.stringify(text);
  return shown.length > width ? `${shown.slice(0, width - 1)}…` : shown.padEnd(width);
}

function probability(logprob: number | null | undefined): string {
  if (logprob === null || logprob === undefined || !Number.isFinite(logprob)) return "cut";
  const value = Math.exp(logprob);
  return value >= 0.001 ? value.toFixed(3) : value.toExponential(0);
}

function alternatives(top: ReadonlyArray<LogitsAlternative>): string {
  return top
    .map((alternative) => `${JSON.stringify(alternative.text)} ${probability(alternative.logprob)}`)
    .join("  ");
}

export function logitsTableHeader(): string {
  return `${"#".padStart(4)}  ${"token".padEnd(14)} ${"p proc".padStart(7)} ${"p raw".padStart(7)}  top processed | top raw\n`;
}

export function logitsTableRow(
  index: number,
  processed: LogitsStep | undefined,
  raw: LogitsStep | undefined,
): string {
  const step = processed ?? raw;
  if (step === undefined) return "";
  return (
    `${String(index + 1).padStart(4)}  ${quoted(step.text, 14)} ${probability(processed?.logprob).padStart(7)} ` +
    `${probability(raw?.logprob).padStart(7)}  ${alternatives(processed?.top ?? [])} | ${alternatives(raw?.top ?? [])}\n`
  );
}
