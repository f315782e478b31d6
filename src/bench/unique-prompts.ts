// Prompts of a requested token length that are unique per run: a salt at the very start defeats any
// prefix cache (llama-server's, ours), so every run pays its full prompt processing, as a new user would.

const words = (
  "river stone garden letter window morning silver market candle harbor meadow lantern journey orchard " +
  "painter thunder valley pocket ribbon castle forest blanket mirror pepper ladder violin island circle " +
  "feather summer copper basket engine marble shadow velvet anchor bridge cotton falcon glacier honey"
).split(" ");

/** `count` filler words, deterministic for a given salt. */
function filler(count: number, salt: number): string[] {
  const chosen: string[] = [];
  let state = (salt * 2654435761) >>> 0;
  for (let index = 0; index < count; index++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    chosen.push(words[state % words.length]!);
  }
  return chosen;
}

/** A first salt for a run's prompts, at random among 36^6 (six base-36 digits). */
export function randomSalt(): number {
  return Math.floor(Math.random() * 36 ** 6);
}

export interface SizedPrompt {
  text: string;
  /** Tokens as counted by the tokenizer given, or estimated (one per word plus the salt) without one. */
  tokens: number;
  measured: boolean;
}

/**
 * A prompt of about `targetTokens` tokens starting with a unique salt. With a tokenizer (`countTokens`:
 * the text's own tokens, without BOS, as every caller counts them) the word count is searched until the
 * count matches; without one it is estimated.
 */
export async function buildUniquePrompt(
  targetTokens: number,
  salt: number,
  countTokens?: (text: string) => Promise<number>,
): Promise<SizedPrompt> {
  if (!Number.isInteger(targetTokens) || targetTokens < 8) {
    throw new RangeError(`Expected a prompt length of at least 8 tokens but received ${targetTokens}.`);
  }
  // As short as it can be and still unique: "Request <salt>-<time>. Continue the list:" was 20 tokens on
  // the tiny model's tokenizer by itself, so every "16-token" prompt came out 19-22 tokens long. Callers
  // start their salts at random among 36^6 (randomSalt), so two runs against one long-lived server (a
  // remote provider's prefix cache) practically never share one.
  const head = `${salt.toString(36)}:`;
  const compose = (wordCount: number, last?: string) => {
    const chosen = filler(wordCount, salt);
    if (last !== undefined) chosen[chosen.length - 1] = last;
    return `${head} ${chosen.join(" ")}`;
  };
  // The head is a few tokens; the rest about a token a word on most vocabularies.
  let wordCount = Math.max(1, targetTokens - 6);
  if (countTokens === undefined) return { text: compose(wordCount), tokens: targetTokens, measured: false };
  let best: SizedPrompt & { wordCount: number } = { text: "", tokens: 0, measured: true, wordCount };
  const consider = async (count: number, last?: string) => {
    const text = compose(count, last);
    const tokens = await countTokens(text);
    if (best.text === "" || Math.abs(tokens - targetTokens) < Math.abs(best.tokens - targetTokens)) {
      best = { text, tokens, measured: true, wordCount: count };
    }
    return tokens;
  };
  // A bracketed secant search over the word count: each step moves by the missing tokens over the tokens
  // per word seen so far, inside the counts known to be too short and too long. A fixed step of about one
  // word per token swung between 1 and 400 words on a character vocabulary (six tokens a word), ran out
  // of attempts, and sized "256-token" prompts at 22 tokens.
  let tooShort = 0;
  let tooLong = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 16; attempt++) {
    const tokens = await consider(wordCount);
    if (tokens === targetTokens) break;
    if (tokens < targetTokens) tooShort = Math.max(tooShort, wordCount);
    else tooLong = Math.min(tooLong, wordCount);
    const perWord = Math.max(0.5, tokens / wordCount);
    let next =
      wordCount + (Math.round((targetTokens - tokens) / perWord) || Math.sign(targetTokens - tokens));
    if (next <= tooShort) next = tooShort + 1;
    if (next >= tooLong) next = tooLong - 1;
    if (next <= tooShort || next >= tooLong) break;
    wordCount = next;
  }
  // A word of two tokens can make the count jump past the target: then another last word (the list's
  // words are one to three tokens each) usually lands on it.
  if (best.tokens !== targetTokens) {
    const around = best.wordCount;
    search: for (const count of [around, around - 1, around + 1]) {
      if (count < 1) continue;
      for (const last of words) {
        if ((await consider(count, last)) === targetTokens) break search;
      }
    }
  }
  const { wordCount: _wordCount, ...prompt } = best;
  return prompt;
}
