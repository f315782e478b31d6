import { flashAttentionNote } from "./flash-attention-setting.js";
import { describeMachine } from "./machine-info.js";
import { formatMedianP90, markdownTable } from "./markdown-table.js";
import { pairedComparisonMarkdown } from "./paired-comparison-table.js";
import { hugePagesNote } from "./peer-binaries.js";
import type { SampleSummary } from "./stats.js";
import { svgBarChart } from "./svg-bar-chart.js";
import type { ThroughputResult } from "./throughput-benchmark.js";

const pair = formatMedianP90;

const label = (target: string, logits: string) => (logits === "off" ? target : `${target}, logits ${logits}`);

export function throughputMarkdown(result: ThroughputResult): string {
  const { settings } = result;
  const table = markdownTable(
    [
      { title: "target" },
      { title: "logits" },
      { title: `prompt processing tokens/s (pp${settings.promptTokens}, median / p90)`, align: "right" },
      { title: `generation tokens/s (tg${settings.generatedTokens}, median / p90)`, align: "right" },
    ],
    result.rows.map((row) =>
      row.skipped !== null
        ? [row.target, row.logits, `skipped: ${row.skipped}`, ""]
        : [row.target, row.logits, pair(row.promptTokensPerSecond), pair(row.generatedTokensPerSecond)],
    ),
  );
  return (
    `Throughput on \`${result.model}\`, ${settings.threads} thread(s), ${settings.repetitions} repetitions; ` +
    `${result.createdAt.slice(0, 16).replace("T", " ")} UTC on ${describeMachine(result.machine)}. ` +
    `Logits are captured raw and processed alike; tessera gives each generation's full rows back to its context once measured (\`releaseLogitsRows\`). ${flashAttentionNote(settings.flashAttention)} ${hugePagesNote}\n\n` +
    table +
    throughputComparisonsMarkdown(result)
  );
}

/** tessera against each reference, repetition by repetition, or "" when none ran beside it. */
export function throughputComparisonsMarkdown(result: ThroughputResult): string {
  const table = pairedComparisonMarkdown(result.comparisons ?? [], "tokens/s");
  if (table === "") return "";
  return (
    "\n\ntessera against each reference run in the same repetition (tessera, the greedy runner and llama-bench " +
    "take turns; node-llama-cpp runs apart, so it has no pairs); above 1× tessera is faster. tessera and the " +
    "greedy runner decode after the prompt; llama-bench's and the runner's tg test decode random tokens, from " +
    "an empty cache or after as many cells as the prompt, as each line says.\n\n" +
    table
  );
}

export function throughputChart(result: ThroughputResult): string {
  const bars = (pick: (row: ThroughputResult["rows"][number]) => SampleSummary) =>
    result.rows.map((row) => ({
      series: label(row.target, row.logits),
      value: row.skipped === null ? pick(row).median : null,
      whisker: row.skipped === null ? pick(row).p90 : null,
      ...(row.skipped !== null && { note: "skipped" }),
    }));
  return svgBarChart({
    title: `Throughput on ${result.model}`,
    subtitle: `${result.createdAt.slice(0, 10)} · ${describeMachine(result.machine)} · ${result.settings.threads} thread(s)`,
    unit: "tokens/s",
    groups: [
      { label: `prompt (pp${result.settings.promptTokens})`, bars: bars((row) => row.promptTokensPerSecond) },
      {
        label: `generation (tg${result.settings.generatedTokens})`,
        bars: bars((row) => row.generatedTokensPerSecond),
      },
    ],
  });
}
