/**
 * Finds stop sequences in streamed text that arrives in arbitrary pieces (a stop sequence may span
 * several tokens). Text that could still be the start of a stop sequence is held back, so the stop
 * text itself is never emitted.
 */
export class StopSequenceMatcher {
  readonly #stops: readonly string[];
  #held = "";
  #stopped = false;

  constructor(stopSequences: readonly string[]) {
    this.#stops = stopSequences.filter((stop) => stop.length > 0);
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** The text that can be emitted now; once a stop sequence is found, what precedes it, then nothing. */
  push(text: string): string {
    if (this.#stopped) return "";
    if (this.#stops.length === 0) return text;
    const buffer = this.#held + text;
    let stopAt = -1;
    for (const stop of this.#stops) {
      const index = buffer.indexOf(stop);
      if (index !== -1 && (stopAt === -1 || index < stopAt)) stopAt = index;
    }
    if (stopAt !== -1) {
      this.#stopped = true;
      this.#held = "";
      return buffer.slice(0, stopAt);
    }
    const keep = this.#longestPendingPrefix(buffer);
    this.#held = buffer.slice(buffer.length - keep);
    return buffer.slice(0, buffer.length - keep);
  }

  /** The held-back text, at the end of the generation (it did not become a stop sequence). */
  flush(): string {
    const held = this.#stopped ? "" : this.#held;
    this.#held = "";
    return held;
  }

  // The longest suffix of `buffer` that is a proper prefix of some stop sequence.
  #longestPendingPrefix(buffer: string): number {
    let longest = 0;
    for (const stop of this.#stops) {
      for (let length = Math.min(stop.length - 1, buffer.length); length > longest; length--) {
        if (buffer.endsWith(stop.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}
