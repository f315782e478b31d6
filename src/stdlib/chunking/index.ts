export { Chunker } from "./chunker.js";
export { type CompletedJsonValue, JsonValueChunker } from "./json-value-chunker.js";
export { paragraphChunking } from "./paragraph-chunking.js";
export { resolveChunking } from "./resolve-chunking.js";
export { sentenceChunking } from "./sentence-chunking.js";
export { wordChunking } from "./word-chunking.js";
