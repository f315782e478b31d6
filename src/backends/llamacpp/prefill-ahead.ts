import { ContextOverflowError } from "../../core/errors/context-overflow-error.js";
import type { LlamaContext } from "./llama-context.js";
import type { PrefixPrefill } from "./prefix-prefill.js";

/** Prompts shorter than this are tokenized in well under a millisecond: nothing to hide. */
export const prefillAheadMinimumCharacters = 1024;

/**
 * The share of a long prompt whose prefill starts before the whole prompt is tokenized. Tokenizing takes
 * 1-4 µs a token and the tiny model's CPU prefill about 33 (docs/native.md, "Prefill ahead"): a prefill
 * of 30% of the prompt outlasts tokenizing all of it, so the decode thread never waits for the tokenizer,
 * and 30% is tokenized twice. A larger model prefills slower still. (A quarter, with no cut to a multiple
 * of 256 tokens, gave 0.99× at 1,024 tokens in one run, against 0.94×: its part ended a cell short of
 * 256, so the generation began with a 1-token step.)
 */
const aheadShare = 0.3;

/** How far back from the cut a space is looked for, so the cut falls between words. */
const wordSearch = 128;

/** Recent prompts remembered, so that a chat's next turn (its history cached) is not prefilled ahead. */
const rememberedPrompts = 16;
const rememberedCharacters = 1 << 16;

/** A part of fewer tokens than this is not worth its own job (a wake-up and a decode step). */
const minimumPrefillTokens = 16;

/**
 * Starts the prefill of a long prompt's first part before the whole prompt is tokenized
 * (LlamaContext.prefillPrefix): the decode thread works through those tokens while this thread tokenizes
 * the rest, and the generation, started with the exact tokens of the whole prompt, reuses the cells of
 * the prefix they share. What the first part's tokenization gets wrong at its cut costs only the reuse
 * of the last tokens: the cut falls before a space, and the part's last token is left out.
 */
export class PrefillAhead {
  /** The prompts of recent generations, newest last. */
  readonly #recent: string[] = [];

  /**
   * The prefill of `prompt`'s first part, or null when it would not pay: a short prompt, or one whose
   * first part a recent generation's prompt began with (its cells are likely cached already, and
   * tokenizing the part would be work for nothing).
   */
  start(context: LlamaContext, prompt: string, tokenize: (text: string) => Int32Array): PrefixPrefill | null {
    if (prompt.length < prefillAheadMinimumCharacters) return null;
    const part = prompt.slice(0, cutOf(prompt));
    const known = this.#recent.some((previous) => previous.startsWith(part));
    this.#remember(prompt);
    if (known) return null;
    const tokens = tokenize(part);
    // The part's last token may be the start of a longer one in the whole prompt: it is left out.
    if (tokens.length - 1 < minimumPrefillTokens) return null;
    const prefix = tokens.subarray(0, alignedLength(tokens.length - 1));
    try {
      return context.prefillPrefix(prefix);
    } catch (error) {
      // A part too long for a sequence: the whole prompt is too, and its own tokenization says so.
      if (error instanceof ContextOverflowError) return null;
      throw error;
    }
  }

  #remember(prompt: string): void {
    // Long prompts only (a short one is never prefilled ahead), and at most their first 64 Ki characters:
    // a part longer than that is not found, and is prefilled ahead again (time, never tokens).
    this.#recent.push(prompt.slice(0, rememberedCharacters));
    if (this.#recent.length > rememberedPrompts) this.#recent.shift();
  }
}

const kvPadding = 256;

/**
 * llama.cpp attends over cells padded to multiples of 256, and the decode engine starts each prefill
 * chunk on such a multiple (DecodeEngine::alignedPrefillChunk): a prefill-ahead that ended at 255 cells
 * left the generation a 1-token step before its first full one. So a part of 256 tokens or more is cut
 * down to a multiple of 256.
 */
function alignedLength(length: number): number {
  return length >= kvPadding ? Math.floor(length / kvPadding) * kvPadding : length;
}

/** Where the first part ends: 30% of the prompt, moved back to just before a space. */
function cutOf(prompt: string): number {
  let cut = Math.floor(prompt.length * aheadShare);
  const space = prompt.lastIndexOf(" ", cut);
  const newline = prompt.lastIndexOf("\n", cut);
  const boundary = Math.max(space, newline);
  if (boundary > 0 && cut - boundary <= wordSearch) cut = boundary;
  // Never between the two halves of a surrogate pair.
  const code = prompt.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return cut;
}
