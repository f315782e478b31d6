// GitHub-flavoured markdown tables for benchmark results. Cells are escaped so that a "|" in a model
// name or an error message cannot break the table.

import type { SampleSummary } from "./stats.js";

export type ColumnAlignment = "left" | "right" | "center";

export interface MarkdownColumn {
  title: string;
  align?: ColumnAlignment;
}

/**
 * Text quoted inside a markdown line, never at its start (an error message from a server): every character
 * that markdown or HTML would act on there is escaped, so the text shows as it was sent and adds no markup
 * or HTML to the page.
 */
export function escapeMarkdownText(text: string): string {
  // An underscore inside a word (TESSERA_LLAMA_SERVER) makes no emphasis, so it stays as it is to read.
  return text
    .replace(/\r\n?|\n/g, " ")
    .replace(/[\\`*[\]<>|~&]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, (character) => `\\${character}`);
}

function escapeCell(text: string): string {
  // A cell may quote a server (a skipped remote's redirect target): text, not markup, and one cell.
  return escapeMarkdownText(text);
}

const separators: Record<ColumnAlignment, string> = { left: ":---", right: "---:", center: ":---:" };

export function markdownTable(
  columns: ReadonlyArray<MarkdownColumn>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
): string {
  const lines = [
    `| ${columns.map((column) => escapeCell(column.title)).join(" | ")} |`,
    `| ${columns.map((column) => separators[column.align ?? "left"]).join(" | ")} |`,
  ];
  for (const row of rows) {
    if (row.length !== columns.length) {
      throw new RangeError(`Expected ${columns.length} cells in a table row but received ${row.length}.`);
    }
    lines.push(`| ${row.map(escapeCell).join(" | ")} |`);
  }
  return `${lines.join("\n")}\n`;
}

/** A number with a fixed count of decimals, or "—" when there is none. */
export function formatNumber(value: number | null | undefined, decimals = 1): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "—" : value.toFixed(decimals);
}

/** A summary as "median / p90", or "—" when it holds no sample. */
export function formatMedianP90(summary: SampleSummary, decimals = 1): string {
  return summary.count === 0
    ? "—"
    : `${formatNumber(summary.median, decimals)} / ${formatNumber(summary.p90, decimals)}`;
}

/** A rate (0..1) as a percentage. */
export function formatRate(value: number): string {
  return `${(value * 100).toFixed(value === 0 || value === 1 ? 0 : 1)}%`;
}
