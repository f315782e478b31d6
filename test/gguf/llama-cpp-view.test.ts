// The pre-load hazard check reads the header as llama.cpp does: keys, string values and token texts
// end at their first NUL byte (llama.cpp reads them back through C strings), and the first key whose
// C string matches answers a lookup. Texts JavaScript tells apart but llama.cpp does not used to pass
// the check and abort the process (defect 7: llama-vocab.cpp:2501).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { GgufFileInfo } from "../../src/gguf/gguf-file-info.js";
import { parseGgufBytes } from "../../src/gguf/gguf-reader.js";
import { type GgufMetadataEntry, gguf } from "../../src/gguf/gguf-value.js";
import { findDuplicateTokens, findLlamaCppHazards } from "../../src/gguf/llama-cpp-hazards.js";
import { asLlamaCppReadsIt, cStringOf } from "../../src/gguf/llama-cpp-view.js";

function regression(name: string): GgufFileInfo {
  const url = new URL(`../reliability/regressions/${name}.gguf`, import.meta.url);
  return parseGgufBytes(readFileSync(url));
}

function headerOnly(metadata: GgufMetadataEntry[]): GgufFileInfo {
  return {
    version: 3,
    fileSize: 0,
    alignment: 32,
    tensorDataOffset: 0,
    metadata,
    metadataByKey: new Map(metadata.map((entry) => [entry.key, entry.value])),
    tensors: [],
  };
}

function withTokens(tokens: string[]): GgufFileInfo {
  return headerOnly([{ key: "tokenizer.ggml.tokens", value: gguf.array("string", tokens) }]);
}

describe("the llama.cpp view of a header", () => {
  it("cuts a text at its first NUL, as a C string read does", () => {
    expect(cStringOf("abc")).toBe("abc");
    expect(cStringOf("a\u0000bc")).toBe("a");
    expect(cStringOf("\u0000abc")).toBe("");
  });

  it("answers a key with the first entry whose key matches up to a NUL, as gguf_find_key does", () => {
    const view = asLlamaCppReadsIt(
      headerOnly([
        { key: "llama.block_count\u0000shadow", value: gguf.uint32(0x7fffffff) },
        { key: "llama.block_count", value: gguf.uint32(1) },
        { key: "tokenizer.ggml.model", value: gguf.string("none\u0000gpt2") },
      ]),
    );
    expect(view.metadataByKey.get("llama.block_count")).toEqual(gguf.uint32(0x7fffffff));
    expect(view.metadataByKey.get("tokenizer.ggml.model")).toEqual(gguf.string("none"));
  });

  it("passes a vocabulary without NULs through without copying it", () => {
    const info = withTokens(["a", "b"]);
    const tokens = info.metadataByKey.get("tokenizer.ggml.tokens");
    expect(asLlamaCppReadsIt(info).metadataByKey.get("tokenizer.ggml.tokens")).toEqual(tokens);
    expect(
      (asLlamaCppReadsIt(info).metadataByKey.get("tokenizer.ggml.tokens") as { values: unknown }).values,
    ).toBe((tokens as { values: unknown }).values);
  });
});

describe("the duplicate-token rule", () => {
  it("finds tokens equal only up to a NUL, naming both ids", () => {
    const problems = findDuplicateTokens(withTokens(["a", "b", "a\u0000x"]));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^tokens 0 and 2 have the same text "a" as llama\.cpp reads them/);
    expect(problems[0]).toContain("make every token text unique and free of NUL bytes");
  });

  it('finds a token starting with NUL (read as empty, so "[EMPTY_<id>]") next to that text', () => {
    expect(findDuplicateTokens(withTokens(["\u0000x", "[EMPTY_0]"]))[0]).toMatch(/^tokens 0 and 1 /);
    expect(findDuplicateTokens(withTokens(["\u0000x", "\u0000y"]))).toEqual([]);
  });

  it("keeps texts that differ before any NUL apart", () => {
    expect(findDuplicateTokens(withTokens(["a\u0000x", "b\u0000x", "\ufeffa", "ab"]))).toEqual([]);
  });
});

describe("regression files of defect 7 (each aborted llama.cpp before the fix)", () => {
  it.each([
    ["token-text-equal-up-to-nul", /tokens 200 and 300 have the same text/],
    ["token-starting-with-nul", /tokens 89 and 90 have the same text "\[EMPTY_89\]"/],
    ["key-block-count-after-nul", /llama\.block_count is 2147483647/],
    ["tokenizer-none-before-nul", /tokenizer\.ggml\.model is "none"/],
    ["rope-scaling-type-unknown", /llama\.rope\.scaling\.type is "bogus"/],
  ])("%s is refused by findLlamaCppHazards", (name, expected) => {
    expect(findLlamaCppHazards(regression(name)).join("\n")).toMatch(expected);
  });
});
