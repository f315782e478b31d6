// Prompts of a requested token length that are unique per run: a salt at the very start defeats any
// prefix cache (llama-server's, ours), so every run pays its full prompt processing, as a new user would.

const words = (
  "river stone garden letter window morning silver market candle harbor meadow lantern journey orchard " +
  "painter thunder valley pocket ribbon castle forest blanket mirror pepper ladder violin island circle " +
  "feather summer copper basket engine marble shadow velvet anchor bridge cotton falcon glacier honey"
).split(" ");

/** `count` filler words, deterministic for a given salt. */
function filler(count: number, salt: number): string {
  const chosen: string[] = [];
  let state = (salt * 2654435761) >>> 0;
  for (let index = 0; index < count; index++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    chosen.push(words[state % words.length]!);
  }
  return chosen.join(" ");
}

export interface SizedPrompt {
  text: string;
  /** Tokens as counted by the tokenizer given, or estimated (one per word plus the salt) without one. */
  tokens: number;
  measured: boolean;
}

/**
 * A prompt of about `targetTokens` tokens starting with a unique salt. With a tokenizer the word count is
 * adjusted until the count matches (filler words are about one token each); without one it is estimated.
 */
export async function buildUniquePrompt(
  targetTokens: number,
  salt: number,
  countTokens?: (text: string) => Promise<number>,
): Promise<SizedPrompt> {
  if (!Number.isInteger(targetTokens) || targetTokens < 8) {
    throw new RangeError(`Expected a prompt length of at least 8 tokens but received ${targetTokens}.`);
  }
  const head = `Request ${salt.toString(36)}-${Date.now().toString(36)}. Continue the list:`;
  const compose = (wordCount: number) => `${head} ${filler(wordCount, salt)}`;
  if (countTokens === undefined) {
    const wordCount = Math.max(1, targetTokens - 12);
    return { text: compose(wordCount), tokens: targetTokens, measured: false };
  }
  let wordCount = Math.max(1, targetTokens - 12);
  let best: SizedPrompt | undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    const text = compose(wordCount);
    const tokens = await countTokens(text);
    if (best === undefined || Math.abs(tokens - targetTokens) < Math.abs(best.tokens - targetTokens)) {
      best = { text, tokens, measured: true };
    }
    if (tokens === targetTokens) break;
    const step = Math.round((targetTokens - tokens) * 0.8) || Math.sign(targetTokens - tokens);
    const next = Math.max(1, wordCount + step);
    if (next === wordCount) break;
    wordCount = next;
  }
  return best!;
}
