import type { ChunkingStrategy } from "../../core/chunking-strategy.js";
import { ChunkingStrategyError } from "../errors/chunking-strategy-error.js";

/**
 * Drives a stateless ChunkingStrategy over a stream, one delta at a time, holding only the fragment after the
 * last complete chunk. Feeding the text in any slicing yields the chunks one split() of the whole would.
 */
export class Chunker {
  readonly strategy: ChunkingStrategy;
  #pending = "";

  constructor(strategy: ChunkingStrategy) {
    this.strategy = strategy;
  }

  /** Add a delta; returns the chunks it completed, in order. */
  feed(delta: string): string[] {
    this.#pending += delta;
    const chunks = this.strategy.split(this.#pending);
    if (chunks.length === 0) return [];
    // split() may drop text between chunks: find each chunk from where the previous one ended and keep the
    // raw rest as the new fragment.
    let cursor = 0;
    for (const chunk of chunks) {
      const position = chunk.length === 0 ? -1 : this.#pending.indexOf(chunk, cursor);
      if (position < 0) throw new ChunkingStrategyError(this.strategy.name, chunk);
      cursor = position + chunk.length;
    }
    this.#pending = this.#pending.slice(cursor);
    return chunks;
  }

  /** Once the stream ended: the trailing fragment as a last chunk, when the strategy keeps it. */
  flush(): string[] {
    const chunks = this.strategy.flush(this.#pending);
    this.#pending = "";
    return chunks;
  }
}
