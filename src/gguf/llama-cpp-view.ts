// The header as llama.cpp reads it, not as JavaScript does. gguf.cpp keeps every string whole (a
// length-prefixed std::string, NUL bytes included), but llama.cpp reads them back through C strings:
// `gguf_get_val_str` and `gguf_get_arr_str` return `c_str()`, token texts are rebuilt with
// `std::string(const char *)`, and `gguf_find_key` matches keys with `strcmp`. So everything after the
// first NUL byte of a key, a string value or a token text is invisible to it: "a\0x" is "a", and a key
// "llama.block_count\0x" answers a lookup of "llama.block_count" when it comes first in the file.
//
// Cutting the decoded JavaScript string at U+0000 is exactly the byte-level cut: our reader only accepts
// strings that are valid UTF-8 (no overlong forms, no surrogates), where byte 0x00 is only ever U+0000
// and decoding maps each byte sequence to one string, so comparing the cut strings compares the bytes
// llama.cpp compares.
import type { GgufFileInfo } from "./gguf-file-info.js";
import type { GgufArrayItem, GgufMetadataEntry, GgufValue } from "./gguf-value.js";

/** The bytes a C string read of `text` keeps: everything before the first NUL. */
export function cStringOf(text: string): string {
  const nul = text.indexOf("\u0000");
  return nul === -1 ? text : text.slice(0, nul);
}

function cutItems(values: readonly GgufArrayItem[]): readonly GgufArrayItem[] {
  // Copy only when needed: a 128k-token vocabulary without NULs is passed through as it is.
  if (!values.some((item) => typeof item === "string" && item.includes("\u0000"))) return values;
  return values.map((item) => (typeof item === "string" ? cStringOf(item) : item));
}

function cutValue(value: GgufValue): GgufValue {
  if (value.type === "string") return { type: "string", value: cStringOf(value.value) };
  if (value.type === "array" && value.itemType === "string") {
    return { ...value, values: cutItems(value.values) };
  }
  return value;
}

/**
 * `info` with keys, string values, string arrays and tensor names cut at their first NUL, and each key
 * answered by the first entry whose cut key matches (as `gguf_find_key` does). The hazard rules read
 * this view, so a text that differs from another only after a NUL is the same text to them too.
 */
export function asLlamaCppReadsIt(info: GgufFileInfo): GgufFileInfo {
  const metadata: GgufMetadataEntry[] = info.metadata.map(({ key, value }) => ({
    key: cStringOf(key),
    value: cutValue(value),
  }));
  const metadataByKey = new Map<string, GgufValue>();
  for (const { key, value } of metadata) if (!metadataByKey.has(key)) metadataByKey.set(key, value);
  const tensors = info.tensors.map((tensor) => ({ ...tensor, name: cStringOf(tensor.name) }));
  return { ...info, metadata, metadataByKey, tensors };
}
