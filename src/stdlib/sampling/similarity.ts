/** How alike two answers are, from 0 (unrelated) to 1 (the same). Must be symmetric for voting to be fair. */
export type Similarity = (first: string, second: string) => number;

/** Lower-case, trimmed, inner whitespace collapsed: the form exact-match voting compares. */
export function normalizeAnswer(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

/** 1 when the normalized answers are equal, else 0: MBR with this is plain majority voting. */
export const exactMatchSimilarity: Similarity = (first, second) =>
  normalizeAnswer(first) === normalizeAnswer(second) ? 1 : 0;

/** ROUGE-L F1 over lower-cased word tokens: the longest common subsequence, for free-form answers. */
export const rougeLSimilarity: Similarity = (first, second) => {
  const a = words(first);
  const b = words(second);
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 1 : 0;
  const common = longestCommonSubsequence(a, b);
  if (common === 0) return 0;
  const precision = common / a.length;
  const recall = common / b.length;
  return (2 * precision * recall) / (precision + recall);
};

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

// Two rows instead of the full table: answers can be long, and only the length is needed.
function longestCommonSubsequence(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}
