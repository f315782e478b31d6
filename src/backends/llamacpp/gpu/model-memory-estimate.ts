import type { GgufFileInfo } from "../../../gguf/gguf-file-info.js";
import { ggufPlainValue } from "../../../gguf/gguf-value.js";
import { readAttentionShape } from "../attention-shape.js";

/** What a model needs in device memory, per part llama.cpp places separately. */
export interface ModelMemoryEstimate {
  /** Repeating layers (blk.N). */
  readonly layerCount: number;
  /** Weight bytes of each repeating layer, from the GGUF tensor table. */
  readonly layerWeightBytes: readonly number[];
  /** The output layer (output norm and LM head; the token embedding again when they are tied). */
  readonly outputLayerBytes: number;
  /** F16 key + value bytes one KV cell takes in one layer. */
  readonly kvBytesPerCellPerLayer: number;
  readonly vocabSize: number;
  readonly embeddingSize: number;
  readonly headCount: number;
}

/**
 * Reads the estimate from a GGUF header (tensor sizes are exact; the KV size follows llama.cpp's F16
 * cache: (key_length + value_length) × head_count_kv × 2 bytes per layer and cell).
 */
export function estimateModelMemory(file: GgufFileInfo): ModelMemoryEstimate {
  const architecture = String(plain(file, "general.architecture") ?? "llama");
  const numberOf = (key: string): number | undefined => {
    const value = plain(file, `${architecture}.${key}`);
    if (typeof value === "number" && value > 0) return value;
    // Per-layer arrays (head_count_kv on some models): the largest entry bounds the cache.
    if (Array.isArray(value)) {
      const numbers = value.filter((item): item is number => typeof item === "number" && item > 0);
      return numbers.length > 0 ? Math.max(...numbers) : undefined;
    }
    return undefined;
  };
  const layerWeights = new Map<number, number>();
  let outputBytes = 0;
  let embeddingBytes = 0;
  let hasOutput = false;
  for (const tensor of file.tensors) {
    const block = /^blk\.(\d+)\./.exec(tensor.name);
    if (block?.[1] !== undefined) {
      const index = Number(block[1]);
      layerWeights.set(index, (layerWeights.get(index) ?? 0) + tensor.byteSize);
    } else if (tensor.name === "token_embd.weight") {
      embeddingBytes = tensor.byteSize;
    } else {
      if (tensor.name === "output.weight") hasOutput = true;
      outputBytes += tensor.byteSize;
    }
  }
  const layerCount = numberOf("block_count") ?? layerWeights.size;
  const layerWeightBytes = Array.from({ length: layerCount }, (_, index) => layerWeights.get(index) ?? 0);
  const embeddingSize = numberOf("embedding_length") ?? 0;
  // Without a head count, one head as wide as the model (the estimate must still size something).
  const shape = readAttentionShape(embeddingSize, numberOf);
  const headCount = shape.heads ?? 1;
  const kvHeads = shape.kvHeads ?? headCount;
  const keyLength = shape.keyLength ?? embeddingSize;
  const valueLength = shape.valueLength ?? embeddingSize;
  const tokens = plain(file, "tokenizer.ggml.tokens");
  const vocabSize = numberOf("vocab_size") ?? (Array.isArray(tokens) ? tokens.length : 0);
  return {
    layerCount,
    layerWeightBytes,
    // Tied embeddings: llama.cpp loads the embedding a second time as the LM head on the output device.
    outputLayerBytes: outputBytes + (hasOutput ? 0 : embeddingBytes),
    kvBytesPerCellPerLayer: (keyLength + valueLength) * kvHeads * 2,
    vocabSize,
    embeddingSize,
    headCount,
  };
}

function plain(file: GgufFileInfo, key: string): unknown {
  const value = file.metadataByKey.get(key);
  return value === undefined ? undefined : ggufPlainValue(value);
}
