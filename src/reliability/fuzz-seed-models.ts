// The valid files the fuzzer mutates: two micro llama models (a few hundred tokens of the bundle's
// SentencePiece and byte-level BPE vocabularies, one 32-wide block: they load in milliseconds, so
// thousands of cases fit in minutes), the `tiny` preset as tests use it, and the bundle's two vocab
// files themselves (vocabulary only: llama.cpp parses their tokenizer, then refuses the missing tensors).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveModel, vocabularyCacheDirectory } from "../gguf/default-model.js";
import type { GgufFileInfo } from "../gguf/gguf-file-info.js";
import { parseGgufBytes } from "../gguf/gguf-reader.js";
import type { GgufArrayItem, GgufMetadataEntry, GgufValue } from "../gguf/gguf-value.js";
import { writeGgufFile } from "../gguf/gguf-writer.js";
import { type LlamaHyperParameters, synthesizeLlamaModel } from "../gguf/llama-synthesizer.js";
import type { WritableTensorType } from "../gguf/tensor-encoding.js";
import { ensureVocabularyFile, type VocabularyName } from "../gguf/vocab-bundle.js";
import { loadVocabulary, type Vocabulary } from "../gguf/vocabulary.js";
import { type GgufLayoutMap, mapGgufLayout } from "./gguf-layout-map.js";

export type FuzzSeedName = "micro-spm" | "micro-bpe" | "tiny-q8_0" | "vocab-spm" | "vocab-bpe";

export interface FuzzSeed {
  readonly name: FuzzSeedName;
  readonly bytes: Uint8Array;
  readonly info: GgufFileInfo;
  readonly layout: GgufLayoutMap;
  /** Share of the corpus mutated from this seed (big seeds get fewer cases: they load slower). */
  readonly weight: number;
  /** Structural mutations re-encode the whole file: too slow for the 7.8 MB BPE vocab (seconds each). */
  readonly structureMutations: boolean;
}

const microHyperParameters: LlamaHyperParameters = {
  embeddingLength: 32,
  blockCount: 1,
  headCount: 2,
  headCountKv: 1,
  feedForwardLength: 64,
  contextLength: 256,
  ropeFreqBase: 10000,
  rmsEpsilon: 1e-5,
  tiedOutput: false,
};
const microTokenCount = 512;
const bpeMergesScanned = 20_000;

function truncateArray(value: GgufValue, length: number): GgufValue {
  return value.type === "array" ? { ...value, values: value.values.slice(0, length) } : value;
}

/** The first `tokenCount` tokens of a vocabulary, with special ids and merges that stay inside it. */
function microVocabulary(vocabulary: Vocabulary, tokenCount: number): Vocabulary {
  const byKey = new Map(vocabulary.entries.map((entry) => [entry.key, entry.value]));
  const tokens = byKey.get("tokenizer.ggml.tokens");
  const kept = tokens?.type === "array" ? (tokens.values.slice(0, tokenCount) as string[]) : [];
  const isBpe = vocabulary.model === "gpt2";
  if (isBpe) {
    // Llama 3's specials sit at 128000+; put two of them at the end of the micro vocabulary.
    kept[tokenCount - 2] = "<|begin_of_text|>";
    kept[tokenCount - 1] = "<|end_of_text|>";
  }
  const known = new Set(kept);
  const entries: GgufMetadataEntry[] = [];
  for (const entry of vocabulary.entries) {
    const { key, value } = entry;
    if (key === "tokenizer.ggml.tokens") {
      entries.push({ key, value: { type: "array", itemType: "string", values: kept } });
    } else if (key === "tokenizer.ggml.token_type" && isBpe && value.type === "array") {
      const types = value.values.slice(0, tokenCount) as number[];
      types[tokenCount - 2] = 3;
      types[tokenCount - 1] = 3;
      entries.push({ key, value: { ...value, values: types } });
    } else if (key === "tokenizer.ggml.merges" && value.type === "array") {
      const merges = (value.values.slice(0, bpeMergesScanned) as string[]).filter((merge) => {
        const [left = "", right = ""] = merge.split(" ");
        return known.has(left) && known.has(right) && known.has(left + right);
      });
      entries.push({ key, value: { ...value, values: merges as GgufArrayItem[] } });
    } else if (key === "tokenizer.ggml.bos_token_id" && isBpe) {
      entries.push({ key, value: { type: "uint32", value: tokenCount - 2 } });
    } else if (key === "tokenizer.ggml.eos_token_id" && isBpe) {
      entries.push({ key, value: { type: "uint32", value: tokenCount - 1 } });
    } else {
      entries.push({ key, value: truncateArray(value, tokenCount) });
    }
  }
  return { ...vocabulary, tokenCount, entries };
}

async function synthesizeMicro(
  name: VocabularyName,
  type: WritableTensorType,
  folder: string,
): Promise<Uint8Array> {
  const vocabulary = microVocabulary(await loadVocabulary(name, vocabularyCacheDirectory()), microTokenCount);
  const model = synthesizeLlamaModel({
    name: `micro ${name} (fuzz seed)`,
    hyperParameters: microHyperParameters,
    vocabulary,
    type,
    seed: 7,
  });
  const path = join(folder, `micro-${name}.gguf`);
  await writeGgufFile(path, model);
  return readFile(path);
}

function seed(name: FuzzSeedName, bytes: Uint8Array, weight: number): FuzzSeed {
  const info = parseGgufBytes(bytes);
  const structureMutations = name !== "vocab-bpe";
  return { name, bytes, info, layout: mapGgufLayout(bytes, info), weight, structureMutations };
}

export interface FuzzSeedOptions {
  /** Include the tiny preset and the 7.8 MB BPE vocab file (slower cases); default true. */
  readonly includeLargeSeeds?: boolean;
}

/** Builds (or reads) every seed; the tiny preset is generated into the models folder on first use. */
export async function buildFuzzSeeds(options: FuzzSeedOptions = {}): Promise<FuzzSeed[]> {
  const folder = await mkdtemp(join(tmpdir(), "tessera-fuzz-seeds-"));
  try {
    const seeds = [
      seed("micro-spm", await synthesizeMicro("llama-spm", "F32", folder), 0.52),
      seed("micro-bpe", await synthesizeMicro("llama-bpe", "Q8_0", folder), 0.34),
      seed(
        "vocab-spm",
        await readFile(await ensureVocabularyFile("llama-spm", vocabularyCacheDirectory())),
        0.05,
      ),
    ];
    if (options.includeLargeSeeds !== false) {
      seeds.push(seed("tiny-q8_0", await readFile(await resolveModel("tiny:q8_0")), 0.06));
      seeds.push(
        seed(
          "vocab-bpe",
          await readFile(await ensureVocabularyFile("llama-bpe", vocabularyCacheDirectory())),
          0.03,
        ),
      );
    }
    return seeds;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
