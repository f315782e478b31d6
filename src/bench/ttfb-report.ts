// The latency results as people read them: a markdown table and an SVG chart of time to first content.

import { firstTokenStages, stagesSum, stageTitles } from "./first-token-stages.js";
import { describeMachine } from "./machine-info.js";
import {
  escapeMarkdownText,
  formatMedianP90,
  formatNumber,
  formatRate,
  markdownTable,
} from "./markdown-table.js";
import { pairedComparisonMarkdown } from "./paired-comparison-table.js";
import type { SampleSummary } from "./stats.js";
import { svgBarChart } from "./svg-bar-chart.js";
import { svgStackedChart } from "./svg-stacked-chart.js";
import type { TtfbResult } from "./ttfb-benchmark.js";
import type { WarmUpRecord } from "./ttfb-warm-up.js";

const pair = formatMedianP90;

/** A decode figure: "n/a" when runs succeeded but no run's tokens arrived in more than one read. */
const decodePair = (summary: SampleSummary, succeeded: number, decimals = 1) =>
  summary.count === 0 && succeeded > 0 ? "n/a" : pair(summary, decimals);

export function ttfbMarkdown(result: TtfbResult & { model?: string | undefined }): string {
  const table = markdownTable(
    [
      { title: "target" },
      { title: "via" },
      { title: "prompt tokens", align: "right" },
      { title: "runs", align: "right" },
      { title: "errors", align: "right" },
      { title: "first byte ms (median / p90)", align: "right" },
      { title: "first token ms (median / p90)", align: "right" },
      { title: "inter-token ms (median / p90)", align: "right" },
      { title: "tokens/s (median / p90)", align: "right" },
    ],
    result.rows.map((row) =>
      row.skipped !== null
        ? [
            row.target,
            row.transport,
            String(row.promptTokens),
            "0",
            "—",
            `skipped: ${row.skipped}`,
            "",
            "",
            "",
          ]
        : [
            row.target,
            row.transport,
            String(row.promptTokens),
            String(row.runs),
            formatRate(row.errorRate),
            pair(row.firstByteMs),
            pair(row.firstContentMs),
            decodePair(row.interTokenMs, row.runs - row.errors, 2),
            decodePair(row.tokensPerSecond, row.runs - row.errors),
          ],
    ),
  );
  const { settings } = result;
  // Results written before the warm-up existed have no such field.
  const warmUp = settings.jitWarmUp ?? null;
  const warmed =
    warmUp === null ? "" : `${jitWarmUpPhrase(warmUp, Math.min(...settings.promptTokens))}, then `;
  const stopped = Object.entries(warmUp?.stopped ?? {}).map(
    ([row, why]) => `\n\nThe JIT warm-up of ${row} stopped early: ${why.replace(/\.$/, "")}.`,
  );
  return (
    `Time to first byte / first token, ${warmed}${settings.runs} runs per row after ${settings.warmupRuns} warm-up runs per length, ` +
    `${settings.maxTokens} generated tokens, unique prompts${promptSizes(result)}${settings.newConnections === true ? ", every HTTP request on a new connection (--new-connections)" : ""}${settings.promptTokensMeasured ? "" : " (lengths estimated)"}, ` +
    `${settings.order === "shuffled" ? `rows in a new random order each run (--order-seed ${settings.orderSeed})` : "rows in the listed order"}; ` +
    `${result.createdAt.slice(0, 16).replace("T", " ")} UTC on ${describeMachine(result.machine)}.${stopped.join("")}\n\n${table}${failedRunsMarkdown(result)}${connectionNotesMarkdown(result)}`
  );
}

/**
 * " of 16 / 255-257 / 1024 tokens as <model>'s tokenizer sized them (…)": what the sizing tokenizer
 * counted, where recorded. A remote provider's own tokenizer may count the same text differently.
 */
function promptSizes(result: TtfbResult & { model?: string | undefined }): string {
  const ranges = result.settings.promptTokenRanges;
  if (ranges === undefined || ranges.length === 0) return "";
  const tokenizer =
    result.model === undefined ? "the local model's tokenizer" : `${result.model}'s tokenizer`;
  const sizes = ranges.map(({ min, max }) => (min === max ? `${min}` : `${min}-${max}`));
  return ` of ${sizes.join(" / ")} tokens as ${tokenizer} sized them (the text's own, without BOS or a chat template)`;
}

/** "N JIT warm-up generations on each row that runs JavaScript here (…) first" for the header line. */
function jitWarmUpPhrase(warmUp: WarmUpRecord, shortestPrompt: number): string {
  // The first version's record (2026-12-02 07:50) had no rows: it warmed every row.
  const rows =
    (warmUp.rows as string[] | undefined) === undefined ? "every row then" : `${warmUp.rows.length} of them`;
  const limit = warmUp.stoppedByLimitMs;
  const stoppedBy =
    typeof limit !== "number"
      ? ""
      : `; as many as started within ${limit >= 1000 ? `${limit / 1000} s` : `${limit} ms`}`;
  return `${warmUp.generations} JIT warm-up generations on each row that runs JavaScript here (${rows}; ${shortestPrompt}-token prompts, ${warmUp.maxTokens} tokens each${stoppedBy}) first`;
}

/** Rows whose server did not keep connections alive: each of their requests paid for a new one. */
function connectionNotesMarkdown(result: TtfbResult): string {
  const notes = Object.entries(result.settings.connectionNotes ?? {});
  return notes.length === 0
    ? ""
    : `\n\nConnections:\n\n${notes.map(([row, note]) => `- ${row}: ${note}.`).join("\n")}`;
}

/** Longest error message quoted under the table; the whole one is in the JSON's runs[].error. */
const quotedErrorLength = 300;

/**
 * Why runs failed, under the table: per row, its failed runs and its most common error (first line),
 * so a row that failed every run says why without opening the JSON. "" when no run failed.
 */
function failedRunsMarkdown(result: TtfbResult): string {
  const byRow = new Map<string, { failed: number; runs: number; messages: Map<string, number> }>();
  for (const run of result.runs) {
    const row = byRow.get(run.target) ?? { failed: 0, runs: 0, messages: new Map<string, number>() };
    byRow.set(run.target, row);
    row.runs++;
    if (run.ok) continue;
    row.failed++;
    // Targets' errors often start with the row's own name, which the line already gives.
    const message = (run.error ?? "no message").split(/\r\n?|\n/)[0]!.replace(`${run.target}: `, "");
    row.messages.set(message, (row.messages.get(message) ?? 0) + 1);
  }
  const lines: string[] = [];
  for (const [target, { failed, runs, messages }] of byRow) {
    if (failed === 0) continue;
    const [message, count] = [...messages].sort((a, b) => b[1] - a[1])[0]!;
    const quoted = message.length > quotedErrorLength ? `${message.slice(0, quotedErrorLength)}…` : message;
    const other = messages.size - 1;
    const others = other > 0 ? ` (${count} of them; ${other} other message${other === 1 ? "" : "s"})` : "";
    lines.push(`- ${target}: ${failed} of ${runs} runs failed${others}: ${escapeMarkdownText(quoted)}`);
  }
  return lines.length === 0
    ? ""
    : `\n\nFailed runs (counted in the errors column, left out of every figure; each run's message is in the JSON's \`runs[].error\`):\n\n${lines.join("\n")}`;
}

/** The run-by-run comparisons of `bench ttfb`, or "" when no pair of rows ran. */
export function ttfbComparisonsMarkdown(result: TtfbResult): string {
  const table = pairedComparisonMarkdown(result.comparisons ?? [], "ms");
  if (table === "") return "";
  return (
    `Rows compared run by run (the same prompt length and run of the interleaved schedule, the rows ${result.settings.order === "shuffled" ? "in a new random order each run" : "in the listed order every run"}): first token of ` +
    "the row over its reference's; below 1× the row is faster.\n\n" +
    table
  );
}

/** The first-token stages of the rows that report them (medians per stage), or "" when none do. */
export function ttfbStagesMarkdown(result: TtfbResult): string {
  const rows = result.rows.filter((row) => row.stages !== null);
  if (rows.length === 0) return "";
  const table = markdownTable(
    [
      { title: "target" },
      { title: "prompt tokens", align: "right" },
      ...firstTokenStages.map((stage) => ({ title: `${stageTitles[stage]} ms`, align: "right" as const })),
      { title: "sum ms", align: "right" },
      { title: "unaccounted ms", align: "right" },
      { title: "first token ms", align: "right" },
    ],
    rows.map((row) => [
      row.target,
      String(row.promptTokens),
      ...firstTokenStages.map((stage) => formatNumber(row.stages![stage], 3)),
      formatNumber(stagesSum(row.stages!), 2),
      formatNumber(row.unaccountedMs, 3),
      formatNumber(row.firstContentMs.median, 2),
    ]),
  );
  return (
    "Where the first token's time goes (medians of each stage; the sum of medians need not equal the " +
    "median first token exactly). Each stage is timed between its own two marks; the first token is the " +
    "benchmark's own (before the call → the reader's first text), and unaccounted is the median over runs " +
    "of the first token minus the stages: time no stage covers (negative: counted twice). Prefill " +
    "includes the first token's sampling: the native clock has no mark between them. tessera's rows " +
    "start prefilling the first 30% of a prompt of 1,024 characters or more while the whole prompt is " +
    "tokenized (prefill ahead): that part runs during tokenize and queue wait, and prefill is the rest.\n\n" +
    table
  );
}

export function ttfbStagesChart(result: TtfbResult): string | null {
  const rows = result.rows.filter((row) => row.stages !== null);
  if (rows.length === 0) return null;
  return svgStackedChart({
    title: "Where the first token's time goes",
    subtitle: `${result.createdAt.slice(0, 10)} · ${describeMachine(result.machine)} · medians of ${result.settings.runs} runs`,
    unit: "ms",
    segments: [...firstTokenStages.map((stage) => stageTitles[stage]), "unaccounted"],
    bars: rows.map((row) => ({
      label: `${row.target} · ${row.promptTokens} tokens`,
      // A negative residual (a stage counted twice) has no length to draw; the table shows its sign.
      values: [...firstTokenStages.map((stage) => row.stages![stage]), Math.max(0, row.unaccountedMs ?? 0)],
    })),
  });
}

export function ttfbChart(result: TtfbResult): string {
  const lengths = [...new Set(result.rows.map((row) => row.promptTokens))];
  return svgBarChart({
    title: "Time to first token",
    subtitle: `${result.createdAt.slice(0, 10)} · ${describeMachine(result.machine)} · ${result.settings.runs} runs per bar`,
    unit: "ms",
    groups: lengths.map((length) => ({
      label: `${length} prompt tokens`,
      bars: result.rows
        .filter((row) => row.promptTokens === length)
        .map((row) => ({
          series: row.target,
          value: row.skipped === null ? row.firstContentMs.median : null,
          whisker: row.firstContentMs.p90,
          ...(row.skipped !== null
            ? { note: "skipped" }
            : row.errors > 0
              ? { note: `errors ${formatRate(row.errorRate)}` }
              : {}),
        })),
    })),
  });
}
