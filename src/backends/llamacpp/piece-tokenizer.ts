// A chat prompt is tokenized with special tokens parsed, and llama.cpp tokenizes such a text piece by
// piece between its special tokens (special-token-split.ts), each piece on its own. A conversation's
// next prompt repeats every earlier message, so its pieces repeat too: this keeps the tokens of recent
// pieces and tokenizes only the new ones. The tokens are those of tokenizing the whole text (the tests
// compare them on every preset vocabulary); what changes is the time: with Llama 3's vocabulary and
// template, a second turn of 1,024 prompt tokens tokenized in 0.23 ms instead of 0.66 (docs/native.md,
// "Chat prompts tokenized piece by piece"). A template that keeps a question and its answer in one piece
// (Llama 2's) gains from the third turn on.
import type { SpecialTokenSplit } from "./special-token-split.js";

/** Bounds of the kept pieces: by UTF-16 units of text (their tokens take about as many bytes again). */
const maxKeptUnits = 4 * 1024 * 1024;
const maxKeptPieces = 8192;
/** A piece longer than this is tokenized and not kept: one pasted document must not evict a chat. */
const maxPieceUnits = 256 * 1024;

export class PieceTokenizer {
  readonly #split: SpecialTokenSplit;
  readonly #tokenizePiece: (text: string) => Int32Array;
  /**
   * Insertion order is recency: a hit moves its piece to the end, eviction takes from the start. Keys are
   * copies of the pieces: a piece is a slice of its prompt, and V8 keeps a long slice as a view of the
   * whole string, so a kept slice kept its whole prompt (410 MB after 2,000 requests that shared a long
   * system prompt, in a review). A hit keeps the stored key for the same reason.
   */
  readonly #kept = new Map<string, { readonly key: string; readonly tokens: Int32Array }>();
  #keptUnits = 0;
  #hits = 0;
  #misses = 0;

  /** `tokenizePiece` tokenizes one piece as llama.cpp would inside a whole text: no BOS/EOS, no parsing. */
  constructor(split: SpecialTokenSplit, tokenizePiece: (text: string) => Int32Array) {
    this.#split = split;
    this.#tokenizePiece = tokenizePiece;
  }

  /** The text's tokens with special tokens parsed and none added (BOS, EOS). */
  tokenize(text: string): Int32Array {
    const parts: Array<Int32Array | number> = [];
    let count = 0;
    for (const piece of this.#split.split(text)) {
      if ("token" in piece) {
        parts.push(piece.token);
        count++;
      } else {
        const tokens = this.#tokensOf(piece.text);
        parts.push(tokens);
        count += tokens.length;
      }
    }
    const result = new Int32Array(count);
    let at = 0;
    for (const part of parts) {
      if (typeof part === "number") result[at++] = part;
      else {
        result.set(part, at);
        at += part.length;
      }
    }
    return result;
  }

  /** Pieces found kept and pieces tokenized, since the model was loaded. */
  get counters(): { hits: number; misses: number; keptPieces: number } {
    return { hits: this.#hits, misses: this.#misses, keptPieces: this.#kept.size };
  }

  #tokensOf(piece: string): Int32Array {
    const kept = this.#kept.get(piece);
    if (kept !== undefined) {
      this.#hits++;
      this.#kept.delete(kept.key);
      this.#kept.set(kept.key, kept);
      return kept.tokens;
    }
    this.#misses++;
    const tokens = this.#tokenizePiece(piece);
    if (piece.length <= maxPieceUnits) {
      const key = ownCopy(piece);
      this.#kept.set(key, { key, tokens });
      this.#keptUnits += key.length;
      for (const oldest of this.#kept.keys()) {
        if (this.#keptUnits <= maxKeptUnits && this.#kept.size <= maxKeptPieces) break;
        this.#kept.delete(oldest);
        this.#keptUnits -= oldest.length;
      }
    }
    return tokens;
  }
}

/**
 * A string with storage of its own. Joining a character in front makes V8 build a new flat string of the
 * piece's contents, and the slice that drops it refers to that string, no longer to the prompt.
 */
function ownCopy(piece: string): string {
  return ` ${piece}`.slice(1);
}
