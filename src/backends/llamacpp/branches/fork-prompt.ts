// The prompt of a fork, in token ids: the source's prompt, its generated tokens before the fork point,
// then the chosen token. Ids, never re-tokenized text: "Hello" + " world" tokenized again need not give
// the ids that were generated, and a different id breaks the shared prefix that the KV copy needs.
import { InvalidForkError } from "../errors/invalid-fork-error.js";

/** What a fork starts from: a generation's prompt and the tokens it generated, as ids. */
export interface ForkSource {
  readonly promptTokens: ArrayLike<number>;
  readonly tokens: ArrayLike<number>;
}

/**
 * `token` given: the new generation continues after that token at `atTokenIndex` (an alternative).
 * `token` omitted: it samples position `atTokenIndex` again (a re-sample, e.g. with other settings).
 */
export function forkPromptTokens(source: ForkSource, atTokenIndex: number, token?: number): Int32Array {
  const generated = source.tokens.length;
  if (!Number.isInteger(atTokenIndex) || atTokenIndex < 0 || atTokenIndex > generated) {
    throw new InvalidForkError(
      `Cannot fork at token ${atTokenIndex}: the source generated ${generated} tokens, so the fork ` +
        `point must be an integer from 0 to ${generated} (to fork after the last token, pass ${generated}).`,
    );
  }
  if (token === undefined && atTokenIndex === 0 && source.promptTokens.length === 0) {
    throw new InvalidForkError("Cannot re-sample token 0 of a source with an empty prompt: give a token.");
  }
  const length = source.promptTokens.length + atTokenIndex + (token === undefined ? 0 : 1);
  const prompt = new Int32Array(length);
  prompt.set(Array.from(source.promptTokens));
  for (let index = 0; index < atTokenIndex; index++) {
    prompt[source.promptTokens.length + index] = source.tokens[index]!;
  }
  if (token !== undefined) prompt[length - 1] = token;
  return prompt;
}
