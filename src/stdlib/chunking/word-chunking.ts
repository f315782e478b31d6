import type { ChunkingStrategy } from "../../core/chunking-strategy.js";

/** Words: runs of non-whitespace. The last word is withheld until whitespace follows it (Mellea's WordChunking). */
export const wordChunking: ChunkingStrategy = {
  name: "word",
  split(text) {
    const words = text.split(/\s+/).filter((word) => word.length > 0);
    if (words.length === 0) return [];
    return /\s$/.test(text) ? words : words.slice(0, -1);
  },
  flush(text) {
    if (text.length === 0 || /\s$/.test(text)) return [];
    const words = text.split(/\s+/).filter((word) => word.length > 0);
    return words.length === 0 ? [] : [words[words.length - 1]!];
  },
};
