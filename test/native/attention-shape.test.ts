// attentionShape reads a model's heads and key/value sizes once for the KV-size estimate (kvBytesPerCell),
// the CPU prefill step and, over a GGUF header, the GPU layer plan. An explicit head_count_kv and
// key_length count without a head count: llama.cpp sizes the cache from them (n_embd_head_k × n_head_kv).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NativeModelMetadata } from "../../src/backends/llamacpp/addon-types.js";
import { attentionShape } from "../../src/backends/llamacpp/attention-shape.js";
import { kvBytesPerCell } from "../../src/backends/llamacpp/context-option-checks.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadTinyModel } from "./tiny-model.js";

describe("a model's attention shape", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadTinyModel();
  });
  afterAll(() => model.dispose());

  /** The tiny model's metadata with only these attention keys (no prefix) set. */
  const withAttention = (keys: Record<string, string>): NativeModelMetadata => {
    const { architecture, values } = model.metadata;
    const kept = Object.entries(values).filter(([key]) => !key.startsWith(`${architecture}.attention.`));
    const given = Object.entries(keys).map(([key, value]) => [`${architecture}.attention.${key}`, value]);
    return { ...model.metadata, values: Object.fromEntries([...kept, ...given]) };
  };

  it("reads the tiny model: 4 heads of 16, 2 key/value heads, 2 layers", () => {
    expect(attentionShape(model.metadata)).toEqual({ heads: 4, kvHeads: 2, keyLength: 16, valueLength: 16 });
    // 2 layers × (32 key + 32 value values) × 2 bytes (F16).
    expect(kvBytesPerCell(model.metadata)).toBe(2 * (32 + 32) * 2);
  });

  it("sizes the cache from head_count_kv and the key/value lengths when the head count is missing", () => {
    const shape = withAttention({ head_count_kv: "8", key_length: "128", value_length: "128" });
    expect(attentionShape(shape)).toEqual({ heads: undefined, kvHeads: 8, keyLength: 128, valueLength: 128 });
    // Falling back to the width (64) whenever the head count was missing made this 512: 16× too small.
    expect(kvBytesPerCell(shape)).toBe(2 * (8 * 128 + 8 * 128) * 2);
  });

  it("falls back to the width per cell and layer with no attention keys at all", () => {
    const none = withAttention({});
    expect(attentionShape(none)).toEqual({
      heads: undefined,
      kvHeads: undefined,
      keyLength: undefined,
      valueLength: undefined,
    });
    expect(kvBytesPerCell(none)).toBe(2 * (64 + 64) * 2);
    // Per-layer arrays count by their largest entry.
    expect(attentionShape(withAttention({ head_count: "[4, 4, 0]" })).heads).toBe(4);
  });
});
