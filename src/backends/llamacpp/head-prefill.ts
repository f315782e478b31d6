// Prefill while tokenizing. llama.cpp's tokenizer costs ~2-3 µs per token on this thread (2.6 ms for a
// 1024-token prompt), and the decode thread sat idle through all of it. For a long prompt on an idle
// context, the head of the text (about 1/16 of it) is tokenized first and prefilled as a generation of its
// own (one greedy token, thrown away) while this thread tokenizes the whole text. The request's own
// generation then starts on the whole tokens and reuses the head's KV cells through the decode engine's
// prefix reuse (the sequence whose cells share the longest prefix; a sibling's cells copied, or waited for
// while they are being prefilled).
//
// Nothing here changes which tokens the model sees: the request decodes exactly the whole text's tokens,
// and the engine reuses a cell only where the cached token equals the prompt's. A head cut where the
// whole text tokenizes differently (a word or a special token split at the cut) just shares a shorter
// prefix. That is also why the head's last tokens are dropped before its prefill: near the cut they are the
// ones most likely to differ.
import type { LlamaContext } from "./llama-context.js";
import type { TokenStream } from "./token-stream.js";

/** Texts shorter than this are tokenized in a fraction of a millisecond: nothing to overlap. */
export const headPrefillMinimumCharacters = 1024;

/** Tokens dropped off the end of the head's tokens: where the whole text may tokenize differently. */
const unsureTailTokens = 2;

/** Where to cut the head: ~1/16 of the text (at least 256 characters, at most a quarter), at a space. */
export function headCut(text: string): number {
  const target = Math.min(Math.max(Math.round(text.length / 16), 256), Math.floor(text.length / 4));
  // The last whitespace in the second half of the target, so a word (and, mostly, a token) is not split.
  for (let index = target; index > target / 2; index--) {
    if (/\s/.test(text[index - 1]!)) return index;
  }
  // No space there (code, CJK): cut anyway, but never between the halves of a surrogate pair.
  const code = text.charCodeAt(target - 1);
  return code >= 0xd800 && code <= 0xdbff ? target - 1 : target;
}

/** A head generation running while the whole text is tokenized. */
export interface HeadPrefill {
  /** The head's tokens as prefilled. */
  readonly tokens: number;
  /**
   * Stops the head generation (a refusal after it started) and resolves once it has ended, so a refused
   * call leaves nothing running; its decoded cells stay reusable.
   */
  stop(): Promise<void>;
}

function sharedPrefix(cached: Int32Array, tokens: Int32Array): number {
  const length = Math.min(cached.length, tokens.length);
  let index = 0;
  while (index < length && cached[index] === tokens[index]) index++;
  return index;
}

/**
 * Starts the head's prefill when it pays: a long text, a context with nothing running (a busy one would
 * queue the head behind other work, and a second request would find its sequence taken), and a head that
 * no sequence holds already (a chat's next turn reuses its history anyway). Null when it does not.
 * `tokenize` is the request's own tokenizer (raw text or rendered template), so the head is cut from the
 * same text and tokenized the same way.
 */
export function startHeadPrefill(
  context: LlamaContext,
  text: string,
  tokenize: (text: string) => Int32Array,
): HeadPrefill | null {
  if (text.length < headPrefillMinimumCharacters || context.runningGenerations > 0) return null;
  const headTokens = tokenize(text.slice(0, headCut(text)));
  if (headTokens.length <= unsureTailTokens + 8) return null;
  const head = headTokens.subarray(0, headTokens.length - unsureTailTokens);
  for (let sequence = 0; sequence < context.sequences; sequence++) {
    if (sharedPrefix(context.sequenceTokens(sequence), head) * 2 >= head.length) return null;
  }
  const stream = context.generate(head, { maxTokens: 1, temperature: 0, reusePrefix: true });
  const drained = drain(stream);
  return {
    tokens: head.length,
    stop: () => {
      stream.cancel();
      return drained;
    },
  };
}

/** Reads the head's one event, so its native job and its handle are released as soon as it ends. */
async function drain(stream: TokenStream): Promise<void> {
  try {
    for await (const _ of stream.batches()) {
      // The head's token is not part of any answer.
    }
  } catch {
    // A stopped or failed head costs the request nothing but the reuse: its own generation decodes the
    // whole prompt then, and reports its own failures.
  }
}
