import type { ChunkingStrategy } from "../../core/chunking-strategy.js";

// Sentence-ending punctuation, an optional closing quote or parenthesis, then whitespace (Mellea's pattern:
// a regex, not NLP, so abbreviations such as "e.g. " end a sentence too).
const sentenceBoundary = /[.!?]["'\u201d\u2019)]?\s/;

/** Sentences, without surrounding whitespace; the last one is withheld until whitespace follows its end. */
export const sentenceChunking: ChunkingStrategy = {
  name: "sentence",
  split(text) {
    const chunks: string[] = [];
    let remaining = text.trimStart();
    for (
      let match = sentenceBoundary.exec(remaining);
      match !== null;
      match = sentenceBoundary.exec(remaining)
    ) {
      chunks.push(remaining.slice(0, match.index + match[0].trimEnd().length));
      remaining = remaining.slice(match.index + match[0].length).trimStart();
    }
    return chunks;
  },
  flush(text) {
    let remaining = text.trimStart();
    for (
      let match = sentenceBoundary.exec(remaining);
      match !== null;
      match = sentenceBoundary.exec(remaining)
    ) {
      remaining = remaining.slice(match.index + match[0].length).trimStart();
    }
    const trailing = remaining.trimEnd();
    return trailing.length > 0 ? [trailing] : [];
  },
};
