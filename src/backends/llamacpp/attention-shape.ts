import type { NativeModelMetadata } from "./addon-types.js";
import { metadataPositiveNumber } from "./metadata-positive-number.js";

/** A model's attention heads and their sizes, from its GGUF metadata. */
export interface AttentionShape {
  readonly heads: number;
  /** Grouped-query attention stores fewer key/value heads than it has query heads. */
  readonly kvHeads: number;
  readonly keyLength: number;
  readonly valueLength: number;
}

/**
 * `<architecture>.attention.*`, with llama.cpp's defaults: key/value heads as many as heads, key and value
 * lengths the width over the heads. Undefined without a head count (a recurrent model, an unknown one).
 */
export function attentionShape(metadata: NativeModelMetadata): AttentionShape | undefined {
  const value = (key: string) =>
    metadataPositiveNumber(metadata.values[`${metadata.architecture}.attention.${key}`]);
  const heads = value("head_count");
  if (heads === undefined) return undefined;
  const headSize = metadata.embeddingSize / heads;
  return {
    heads,
    kvHeads: value("head_count_kv") ?? heads,
    keyLength: value("key_length") ?? headSize,
    valueLength: value("value_length") ?? headSize,
  };
}
