import { describeMachine } from "./machine-info.js";
import { formatMedianP90, formatNumber, formatRate, markdownTable } from "./markdown-table.js";
import type { SampleSummary } from "./stats.js";
import type { StrategiesResult } from "./strategies-benchmark.js";
import { svgBarChart } from "./svg-bar-chart.js";

const pair = (summary: SampleSummary, decimals = 0) => formatMedianP90(summary, decimals);

export function strategiesMarkdown(result: StrategiesResult): string {
  const { settings } = result;
  const strategies = markdownTable(
    [
      { title: "strategy" },
      { title: "success", align: "right" },
      { title: "errors", align: "right" },
      { title: "samples (median / p90)", align: "right" },
      { title: "tokens (median / p90)", align: "right" },
      { title: "wall ms (median / p90)", align: "right" },
    ],
    result.rows.map((row) => [
      row.strategy,
      formatRate(row.successRate),
      String(row.errors),
      pair(row.samples),
      pair(row.tokens),
      pair(row.wallMs),
    ]),
  );
  const batching = markdownTable(
    [
      { title: "mode" },
      { title: "wall ms (median / p90)", align: "right" },
      { title: "× one sample", align: "right" },
    ],
    result.batching.map((row) => [row.mode, pair(row.wallMs, 1), formatNumber(row.timesOneSample, 2)]),
  );
  const streaming = markdownTable(
    [
      { title: "strategy" },
      { title: "schedule" },
      { title: "streaming checks" },
      { title: "success", align: "right" },
      { title: "wall ms / accepted", align: "right" },
      { title: "attempts until pass (median / p90)", align: "right" },
      { title: "tokens generated", align: "right" },
      { title: "tokens thrown away", align: "right" },
      { title: "tokens saved", align: "right" },
      { title: "first token ms (p50 / p90)", align: "right" },
      { title: "last token ms (p50 / p90)", align: "right" },
      { title: "peak live", align: "right" },
      { title: "decoded", align: "right" },
    ],
    result.streaming.map((row) => [
      row.strategy,
      `${row.scheduling} (${row.concurrency} live)`,
      row.streaming ? "on" : "off",
      formatRate(row.successRate),
      formatNumber(row.wallPerAcceptedMs, 1),
      pair(row.attemptsUntilPass, 1),
      String(row.tokensGenerated),
      String(row.tokensDiscarded),
      row.tokensSaved === null ? "—" : String(row.tokensSaved),
      pair(row.firstTokenMs, 1),
      pair(row.lastTokenMs, 1),
      row.peakLive === null ? "—" : String(row.peakLive),
      row.decodedTokens === null ? "—" : String(row.decodedTokens),
    ]),
  );
  const notice = result.untrained
    ? `**The model \`${result.model}\` has random weights (untrained): every success rate below is noise.** ` +
      "Token counts, cancellations and latencies are what this run measures.\n\n"
    : "";
  return (
    notice +
    `Strategies on \`${result.model}\`, ${settings.threads} thread(s), ${settings.tasks.length} tasks × ${settings.runs} runs, ` +
    `at most ${settings.maxTokens} tokens per sample, temperature ${settings.temperature ?? 0.9}; ${result.createdAt.slice(0, 16).replace("T", " ")} UTC on ` +
    `${describeMachine(result.machine)}.\n\n${strategies}\nBest-of-${settings.n}, ${settings.maxTokens} tokens per sample:\n\n${batching}\n` +
    "Pooled strategies with and without streaming validation (paired runs: the same seeds, so the same samples " +
    "in the same order; tokens saved = the paired run without streaming checks minus this one). Tokens are the " +
    "native per-generation counts; peak live (the most generations holding a sequence at once) and decoded " +
    `(prompt and generated tokens through llama_decode) are the decode engine's own counters:\n\n${streaming}`
  );
}

export function strategiesChart(result: StrategiesResult): string {
  return svgBarChart({
    title: `Sampling strategies on ${result.model}${result.untrained ? " (random weights: success is noise)" : ""}: wall time`,
    subtitle: `${result.createdAt.slice(0, 10)} · ${describeMachine(result.machine)} · success rate after each bar`,
    unit: "ms",
    groups: [
      {
        label: "per task",
        bars: result.rows.map((row) => ({
          series: row.strategy,
          value: row.wallMs.median,
          whisker: row.wallMs.p90,
          note: `success ${formatRate(row.successRate)}`,
        })),
      },
      {
        label: `best-of-${result.settings.n}`,
        bars: result.batching.map((row) => ({
          series: row.mode,
          value: row.wallMs.median,
          whisker: row.wallMs.p90,
        })),
      },
      {
        label: "wall per accepted sample",
        bars: result.streaming
          .filter((row) => row.wallPerAcceptedMs !== null)
          .map((row) => ({
            series: `${row.strategy} ${row.scheduling}${row.streaming ? " + streaming" : ""}`,
            value: row.wallPerAcceptedMs,
            note: `${row.tokensGenerated} tokens${row.tokensSaved === null ? "" : `, ${row.tokensSaved} saved`}`,
          })),
      },
    ],
  });
}
