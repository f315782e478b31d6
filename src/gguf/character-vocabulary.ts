// A small SentencePiece-style ("llama") vocabulary for character-level models: the three specials, the
// 256 byte tokens and one token per printable ASCII character, 354 tokens in all. llama.cpp's SPM
// tokenizer maps each character to its token (no merges exist), a space to "▁" (SentencePiece's
// escaped space) and everything else (newline, tab, non-ASCII) to byte tokens, so any text round-trips.
// With 354 rows instead of 32k the vocabulary no longer dominates a tiny model's compute, and a
// character model trains in minutes.
import { gguf } from "./gguf-value.js";
import type { Vocabulary } from "./vocabulary.js";

// llama.cpp's token types (llama_token_type).
const normalType = 1;
const unknownType = 2;
const controlType = 3;
const byteType = 6;

/** "▁", the escaped space of SentencePiece vocabularies. */
export const sentencePieceSpace = "\u2581";

function characterTokenTable(): { tokens: string[]; types: number[] } {
  const tokens = ["<unk>", "<s>", "</s>"];
  const types = [unknownType, controlType, controlType];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(byteType);
  }
  tokens.push(sentencePieceSpace);
  types.push(normalType);
  for (let code = 0x21; code <= 0x7e; code++) {
    tokens.push(String.fromCharCode(code));
    types.push(normalType);
  }
  return { tokens, types };
}

/** The character vocabulary as `tokenizer.*` metadata, ready for the synthesizer. */
export function characterVocabulary(): Vocabulary {
  const { tokens, types } = characterTokenTable();
  return {
    name: "characters",
    tokenCount: tokens.length,
    model: "llama",
    entries: [
      { key: "tokenizer.ggml.model", value: gguf.string("llama") },
      { key: "tokenizer.ggml.tokens", value: gguf.array("string", tokens) },
      // No merges exist, so the scores never rank anything; 0 for all.
      {
        key: "tokenizer.ggml.scores",
        value: gguf.array(
          "float32",
          tokens.map(() => 0),
        ),
      },
      { key: "tokenizer.ggml.token_type", value: gguf.array("int32", types) },
      { key: "tokenizer.ggml.unknown_token_id", value: gguf.uint32(0) },
      { key: "tokenizer.ggml.bos_token_id", value: gguf.uint32(1) },
      { key: "tokenizer.ggml.eos_token_id", value: gguf.uint32(2) },
      // A leading space would be a token the training text never had at its start.
      { key: "tokenizer.ggml.add_space_prefix", value: gguf.bool(false) },
      { key: "tokenizer.ggml.add_eos_token", value: gguf.bool(false) },
    ],
  };
}
