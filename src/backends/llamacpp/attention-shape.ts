import type { NativeModelMetadata } from "./addon-types.js";
import { metadataPositiveNumber } from "./metadata-positive-number.js";

/**
 * A model's attention heads and their sizes, as far as its GGUF says. Each is undefined when neither its
 * key nor llama.cpp's default gives it (no head count: a recurrent model, an unknown one).
 */
export interface AttentionShape {
  readonly heads: number | undefined;
  /** Grouped-query attention stores fewer key/value heads than it has query heads. */
  readonly kvHeads: number | undefined;
  readonly keyLength: number | undefined;
  readonly valueLength: number | undefined;
}

/**
 * `attention.*` read through `read` (a positive number or undefined per key, without the architecture
 * prefix), with llama.cpp's defaults: as many key/value heads as heads, key and value lengths the width
 * over the heads. An explicit head_count_kv or key_length counts without a head count: llama.cpp sizes
 * the cache from them (n_embd_head_k × n_head_kv).
 */
export function readAttentionShape(width: number, read: (key: string) => number | undefined): AttentionShape {
  const heads = read("attention.head_count");
  const headSize = heads === undefined ? undefined : width / heads;
  return {
    heads,
    kvHeads: read("attention.head_count_kv") ?? heads,
    keyLength: read("attention.key_length") ?? headSize,
    valueLength: read("attention.value_length") ?? headSize,
  };
}

/** A reader of the model's `<architecture>.<key>` values (rendered as text) as positive numbers. */
export function architectureNumbers(metadata: NativeModelMetadata): (key: string) => number | undefined {
  return (key) => metadataPositiveNumber(metadata.values[`${metadata.architecture}.${key}`]);
}

/** readAttentionShape over the addon's metadata. */
export function attentionShape(metadata: NativeModelMetadata): AttentionShape {
  return readAttentionShape(metadata.embeddingSize, architectureNumbers(metadata));
}
