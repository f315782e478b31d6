import { describeMachine } from "./machine-info.js";
import { formatNumber, formatRate, markdownTable } from "./markdown-table.js";
import type { SampleSummary } from "./stats.js";
import type { StrategiesResult } from "./strategies-benchmark.js";
import { svgBarChart } from "./svg-bar-chart.js";

const pair = (summary: SampleSummary, decimals = 0) =>
  summary.count === 0
    ? "—"
    : `${formatNumber(summary.median, decimals)} / ${formatNumber(summary.p90, decimals)}`;

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
  return (
    `Strategies on \`${result.model}\`, ${settings.threads} thread(s), ${settings.tasks.length} tasks × ${settings.runs} runs, ` +
    `at most ${settings.maxTokens} tokens per sample, temperature 0.9; ${result.createdAt.slice(0, 16).replace("T", " ")} UTC on ` +
    `${describeMachine(result.machine)}.\n\n${strategies}\nBest-of-${settings.n}, ${settings.maxTokens} tokens per sample:\n\n${batching}`
  );
}

export function strategiesChart(result: StrategiesResult): string {
  return svgBarChart({
    title: `Sampling strategies on ${result.model}: wall time per task`,
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
    ],
  });
}
