// Rows compared run by run: the ratio (and difference) of two rows' figures from the same repetition,
// measured side by side, then the median and spread of those ratios. A busy moment on the machine
// slows both runs of a pair, so the ratio's spread is much tighter than the spread of either row.
import { percentile } from "./stats.js";

export interface PairedComparison {
  /** The row compared, e.g. "tessera (in-process)". */
  target: string;
  /** The row it is compared with, e.g. "node-llama-cpp (in-process)". */
  reference: string;
  /** Prompt length, where the benchmark has several. */
  promptTokens?: number;
  /** What the figures are ("first token ms", "generation tokens/s"). */
  figure: string;
  /** Pairs where both rows have a figure. */
  pairs: number;
  /** Median of target / reference over the pairs; null without pairs. */
  medianRatio: number | null;
  p10Ratio: number | null;
  p90Ratio: number | null;
  /** Median of target − reference. */
  medianDifference: number | null;
}

/**
 * Compares two series measured in the same repetitions: index i of each is repetition i; a missing
 * (null, undefined or non-finite) figure on either side drops that pair, and a zero reference too.
 */
export function comparePaired(
  target: string,
  reference: string,
  figure: string,
  targetValues: ReadonlyArray<number | null | undefined>,
  referenceValues: ReadonlyArray<number | null | undefined>,
  promptTokens?: number,
): PairedComparison {
  const ratios: number[] = [];
  const differences: number[] = [];
  const length = Math.min(targetValues.length, referenceValues.length);
  for (let index = 0; index < length; index++) {
    const mine = targetValues[index];
    const theirs = referenceValues[index];
    if (typeof mine !== "number" || typeof theirs !== "number") continue;
    if (!Number.isFinite(mine) || !Number.isFinite(theirs) || theirs === 0) continue;
    ratios.push(mine / theirs);
    differences.push(mine - theirs);
  }
  return {
    target,
    reference,
    ...(promptTokens !== undefined && { promptTokens }),
    figure,
    pairs: ratios.length,
    medianRatio: percentile(ratios, 0.5),
    p10Ratio: percentile(ratios, 0.1),
    p90Ratio: percentile(ratios, 0.9),
    medianDifference: percentile(differences, 0.5),
  };
}
