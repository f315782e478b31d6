import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GgufVocabUnavailableError } from "../../src/gguf/errors/gguf-vocab-unavailable-error.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { ensureVocabularyFile, findLlamaCppBundle } from "../../src/gguf/vocab-bundle.js";
import { scratchFolder } from "./crafted-files.js";

const scratch = scratchFolder();
afterAll(() => scratch.remove());

describe("vocabularies from node-llama-cpp's llama.cpp bundle", () => {
  it("finds the bundle and extracts both vocabularies into a cache folder", async () => {
    expect(findLlamaCppBundle()).toMatch(/node-llama-cpp\/llama\/gitRelease\.bundle$/);
    const cache = join(scratch.path, "cache");
    const spm = await ensureVocabularyFile("llama-spm", cache);
    expect(readdirSync(cache).sort()).toEqual(["ggml-vocab-llama-bpe.gguf", "ggml-vocab-llama-spm.gguf"]);
    const info = await readGgufFile(spm);
    expect(info.metadataByKey.get("tokenizer.ggml.model")).toEqual({ type: "string", value: "llama" });
    expect(await ensureVocabularyFile("llama-bpe", cache)).toBe(join(cache, "ggml-vocab-llama-bpe.gguf"));
  });

  it("fails with a typed error naming the fix when git cannot run, leaving nothing behind", async () => {
    const cache = join(scratch.path, "no-git");
    const path = process.env.PATH;
    process.env.PATH = "";
    try {
      const error = await ensureVocabularyFile("llama-spm", cache).catch((caught: unknown) => caught);
      expect(GgufVocabUnavailableError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("check that git is installed");
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
  });
});
