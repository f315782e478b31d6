import type { ChunkingStrategy } from "../../core/chunking-strategy.js";
import { UnknownChunkingError } from "../errors/unknown-chunking-error.js";
import { paragraphChunking } from "./paragraph-chunking.js";
import { sentenceChunking } from "./sentence-chunking.js";
import { wordChunking } from "./word-chunking.js";

const byName: Readonly<Record<string, ChunkingStrategy>> = {
  word: wordChunking,
  sentence: sentenceChunking,
  paragraph: paragraphChunking,
};

/** A chunking strategy from its name ("word", "sentence", "paragraph"); strategies and null pass through. */
export function resolveChunking(chunking: string | ChunkingStrategy | null): ChunkingStrategy | null {
  if (typeof chunking !== "string") return chunking;
  const strategy = byName[chunking];
  if (strategy === undefined) throw new UnknownChunkingError(chunking, Object.keys(byName));
  return strategy;
}
