import type { ChunkingStrategy } from "../../core/chunking-strategy.js";

/** Paragraphs separated by two or more newlines; the last is withheld until such a separator follows it. */
export const paragraphChunking: ChunkingStrategy = {
  name: "paragraph",
  split(text) {
    const parts = text.split(/\n{2,}/);
    // Without a separator at the very end the last part may still grow.
    if (!/\n{2,}$/.test(text)) parts.pop();
    return parts.filter((part) => part.length > 0);
  },
  flush(text) {
    if (text.length === 0 || /\n{2,}$/.test(text)) return [];
    const trailing = text.split(/\n{2,}/).pop() ?? "";
    // Byte for byte, as Mellea does: a single newline inside a paragraph can matter.
    return trailing.length > 0 ? [trailing] : [];
  },
};
