/**
 * How a stream of text is cut into the chunks a streaming requirement judges (words, sentences, ...).
 * Stateless: given all the text so far, split() returns the complete chunks and withholds the trailing
 * fragment; flush() releases that fragment once the stream has ended. Implementations live in stdlib.
 */
export interface ChunkingStrategy {
  /** A short name for logs ("word", "sentence"). */
  readonly name: string;
  /** The complete chunks of `text`, each a verbatim substring of it, the trailing fragment left out. */
  split(text: string): string[];
  /** The trailing fragment split() withheld, as a final chunk (or none). */
  flush(text: string): string[];
}
