import { stemmer } from "stemmer";

/** How alike two answers are, from 0 (unrelated) to 1 (the same). Must be symmetric for voting to be fair. */
export type Similarity = (first: string, second: string) => number;

/** Lower-case, trimmed, inner whitespace collapsed: the form exact-match voting compares. */
export function normalizeAnswer(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

/** 1 when the normalized answers are equal, else 0: MBR with this is plain majority voting. */
export const exactMatchSimilarity: Similarity = (first, second) =>
  normalizeAnswer(first) === normalizeAnswer(second) ? 1 : 0;

/**
 * ROUGE-L F-measure (longest common subsequence of tokens), as Mellea's MBRD computes it with rouge_score's
 * `RougeScorer(["rougeL"], use_stemmer=True)`: see rougeTokens(). Two answers without a single token score 0,
 * as in rouge_score, even against each other.
 */
export const rougeLSimilarity: Similarity = (first, second) => {
  const a = rougeTokens(first);
  const b = rougeTokens(second);
  if (a.length === 0 || b.length === 0) return 0;
  const common = longestCommonSubsequence(a, b);
  if (common === 0) return 0;
  const precision = common / a.length;
  const recall = common / b.length;
  return (2 * precision * recall) / (precision + recall);
};

/**
 * rouge_score's tokenizer: lower-case, every character outside [a-z0-9] is a separator (so "café" gives
 * "caf" and non-Latin scripts give nothing), and tokens longer than 3 characters are Porter-stemmed.
 * rouge_score stems with NLTK's Porter variant; `stemmer` is the original 1980 algorithm, which differs from
 * it on a few rare words (NLTK turns "dying" into "die", the original into "dy").
 */
function rougeTokens(text: string): string[] {
  const tokens = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return tokens.map((token) => (token.length > 3 ? stemmer(token) : token));
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
