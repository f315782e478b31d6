// A tokenizer taken from a vocab GGUF: every `tokenizer.*` key/value, kept with its wire type.
import { characterVocabulary } from "./character-vocabulary.js";
import { readGgufFile } from "./gguf-reader.js";
import type { GgufMetadataEntry } from "./gguf-value.js";
import { ensureVocabularyFile, type VocabularyName } from "./vocab-bundle.js";

/** A vocabulary of the llama.cpp bundle, or the built-in character vocabulary (character-vocabulary.ts). */
export type PresetVocabularyName = VocabularyName | "characters";

export interface Vocabulary {
  readonly name: PresetVocabularyName;
  readonly tokenCount: number;
  /** `tokenizer.ggml.model`: "llama" (SentencePiece) or "gpt2" (byte-level BPE). */
  readonly model: string;
  readonly entries: readonly GgufMetadataEntry[];
}

const loaded = new Map<string, Promise<Vocabulary>>();

async function load(name: VocabularyName, cacheDirectory: string): Promise<Vocabulary> {
  const info = await readGgufFile(await ensureVocabularyFile(name, cacheDirectory));
  const entries = info.metadata.filter((entry) => entry.key.startsWith("tokenizer."));
  const tokens = info.metadataByKey.get("tokenizer.ggml.tokens");
  const model = info.metadataByKey.get("tokenizer.ggml.model");
  return {
    name,
    tokenCount: tokens?.type === "array" ? tokens.values.length : 0,
    model: model?.type === "string" ? model.value : "unknown",
    entries,
  };
}

/** Loads (once per process) the named vocabulary, extracting it into `cacheDirectory` if needed. */
export function loadVocabulary(name: PresetVocabularyName, cacheDirectory: string): Promise<Vocabulary> {
  if (name === "characters") return Promise.resolve(characterVocabulary());
  const key = `${cacheDirectory}\0${name}`;
  let vocabulary = loaded.get(key);
  if (vocabulary === undefined) {
    vocabulary = load(name, cacheDirectory);
    vocabulary.catch(() => loaded.delete(key));
    loaded.set(key, vocabulary);
  }
  return vocabulary;
}
