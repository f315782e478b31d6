/** How a judge's answer was read: passed or not, and the answer's words kept as the reason. */
export interface JudgeVerdict {
  passed: boolean;
  /** The whole answer when it said more than yes/no; a fixed note when it said neither. */
  reason: string | null;
}

/**
 * The documented rule for reading an LLM-as-judge answer. Leading whitespace, quotes, asterisks and other
 * punctuation are skipped, then the first word decides, case-insensitively: `yes` (or `true`, `pass`)
 * passes, `no` (or `false`, `fail`) fails. Any other first word fails, with a reason saying the answer was
 * neither. Answers with more words than the deciding one keep their full trimmed text as the reason.
 */
export function readJudgeAnswer(answer: string): JudgeVerdict {
  const trimmed = answer.trim();
  // Small models decorate: "**Yes**", "\"No.\"", "- yes, because ...".
  const match = /^[^\p{L}\p{N}]*(\p{L}+)/u.exec(trimmed);
  const firstWord = match?.[1]?.toLowerCase() ?? "";
  // Decoration around the word ("**Yes**", "\"No.\"") is not an explanation; any further word is.
  const verbose = /[\p{L}\p{N}]/u.test(trimmed.slice(match?.[0].length ?? 0));
  if (positiveWords.has(firstWord)) return { passed: true, reason: verbose ? trimmed : null };
  if (negativeWords.has(firstWord)) return { passed: false, reason: verbose ? trimmed : null };
  return {
    passed: false,
    reason: `The judge answered neither yes nor no: ${JSON.stringify(trimmed.slice(0, 200))}`,
  };
}

const positiveWords = new Set(["yes", "true", "pass", "passed"]);
const negativeWords = new Set(["no", "false", "fail", "failed"]);
