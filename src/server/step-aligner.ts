/** What the aligner needs of a logits step: the text its token completes. */
export interface AlignedStep {
  /** "" for a token whose bytes end inside a UTF-8 character; the token completing it carries it whole. */
  readonly text: string;
}

/** A range of steps, [from, to). */
export interface StepRange {
  from: number;
  to: number;
}

/**
 * Decides which logits steps each streamed chunk carries, so that a chunk's logprobs are exactly the tokens
 * whose text it carries. Backends record a step as they decode, ahead of the text a reader has received,
 * and hold text back (stop sequences, tool-call markup, incomplete characters); so steps are matched to
 * the text by position: a chunk carries the steps whose text ends within the text sent so far. A token
 * that ends inside a character waits, with no text of its own, for the chunk carrying that character.
 */
export class StepAligner {
  #next = 0;
  // Characters of output covered by the steps before #next.
  #covered = 0;

  /** The steps whose text lies within the first `sentLength` characters of the output, not taken before. */
  take(steps: readonly AlignedStep[], sentLength: number): StepRange {
    const from = this.#next;
    let end = this.#covered;
    let index = from;
    for (; index < steps.length; index++) {
      const length = steps[index]!.text.length;
      if (end + length > sentLength) break;
      end += length;
      // Steps without text stay behind until a step with text follows them into this chunk.
      if (length > 0) {
        this.#next = index + 1;
        this.#covered = end;
      }
    }
    if (index === steps.length && end < sentLength) {
      // Text beyond every step's: the bytes of a character the output ended inside, sent as replacement
      // characters. The tokens that held them go with it.
      this.#next = steps.length;
      this.#covered = sentLength;
    }
    return { from, to: this.#next };
  }

  /** Every step not taken yet: the last chunk carries them (as the non-streamed answer would). */
  rest(steps: readonly AlignedStep[]): StepRange {
    const from = this.#next;
    this.#next = Math.max(from, steps.length);
    return { from, to: this.#next };
  }
}
