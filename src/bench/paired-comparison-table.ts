// Paired comparisons as a markdown table, shared by the ttfb and throughput reports.
import { formatNumber, markdownTable } from "./markdown-table.js";
import type { PairedComparison } from "./paired-comparison.js";

/** A comparison table: each pair's median ratio with its p10–p90 spread and median difference. */
export function pairedComparisonMarkdown(
  comparisons: ReadonlyArray<PairedComparison>,
  differenceUnit: string,
): string {
  if (comparisons.length === 0) return "";
  const hasLengths = comparisons.some((comparison) => comparison.promptTokens !== undefined);
  return markdownTable(
    [
      { title: "row" },
      { title: "against" },
      ...(hasLengths ? [{ title: "prompt tokens", align: "right" as const }] : []),
      { title: "figure" },
      { title: "pairs", align: "right" },
      { title: "ratio (median)", align: "right" },
      { title: "ratio p10 – p90", align: "right" },
      { title: `difference (median, ${differenceUnit})`, align: "right" },
    ],
    comparisons.map((comparison) => [
      comparison.target,
      comparison.reference,
      ...(hasLengths ? [String(comparison.promptTokens ?? "")] : []),
      comparison.figure,
      String(comparison.pairs),
      comparison.medianRatio === null ? "—" : `${formatNumber(comparison.medianRatio, 2)}×`,
      comparison.p10Ratio === null
        ? "—"
        : `${formatNumber(comparison.p10Ratio, 2)} – ${formatNumber(comparison.p90Ratio, 2)}`,
      comparison.medianDifference === null ? "—" : formatNumber(comparison.medianDifference, 2),
    ]),
  );
}
