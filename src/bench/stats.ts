// Summary statistics for benchmark samples. Percentiles use linear interpolation between closest
// ranks (the same definition as numpy's default), so a p90 of 10 samples is not just the maximum.

export interface SampleSummary {
  count: number;
  median: number | null;
  p90: number | null;
  mean: number | null;
  min: number | null;
  max: number | null;
}

/** The q-quantile (0 ≤ q ≤ 1) of the finite values; null when there are none. */
export function percentile(values: ReadonlyArray<number>, quantile: number): number | null {
  if (!(quantile >= 0 && quantile <= 1)) {
    throw new RangeError(`Expected a quantile between 0 and 1 but received ${quantile}.`);
  }
  const sorted = values.filter((value) => Number.isFinite(value)).sort((left, right) => left - right);
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * quantile;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (position - lower);
}

export function median(values: ReadonlyArray<number>): number | null {
  return percentile(values, 0.5);
}

export function p90(values: ReadonlyArray<number>): number | null {
  return percentile(values, 0.9);
}

/** Count, median, p90, mean, min and max of the finite values. */
export function summarize(values: ReadonlyArray<number>): SampleSummary {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length === 0) return { count: 0, median: null, p90: null, mean: null, min: null, max: null };
  return {
    count: finite.length,
    median: percentile(finite, 0.5),
    p90: percentile(finite, 0.9),
    mean: finite.reduce((sum, value) => sum + value, 0) / finite.length,
    min: Math.min(...finite),
    max: Math.max(...finite),
  };
}
