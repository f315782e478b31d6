// validateLlamaModel checks llama.block_count against llama.cpp's limit and the tensor table before it
// lists the tensors it expects: a 59 kB file declaring 2^31-1 blocks used to make it build billions of
// tensor descriptions until the heap ran out (found by the reliability fuzzer).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { GgufModelMismatchError } from "../../src/gguf/errors/gguf-model-mismatch-error.js";
import type { GgufFileInfo } from "../../src/gguf/gguf-file-info.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { gguf } from "../../src/gguf/gguf-value.js";
import { validateLlamaModel } from "../../src/gguf/llama-model-validation.js";

const bomb = fileURLToPath(new URL("../reliability/regressions/block-count-2-31.gguf", import.meta.url));

function problemsOf(info: GgufFileInfo): readonly string[] {
  try {
    validateLlamaModel(info);
    return [];
  } catch (error) {
    if (!GgufModelMismatchError.isInstance(error)) throw error;
    return error.problems;
  }
}

function withBlockCount(info: GgufFileInfo, blocks: number): GgufFileInfo {
  const metadataByKey = new Map(info.metadataByKey).set("llama.block_count", gguf.uint32(blocks));
  return { ...info, metadataByKey };
}

describe("validateLlamaModel and llama.block_count", () => {
  it("refuses 2^31-1 blocks in a 59 kB file with one problem, without listing tensors", async () => {
    const problems = problemsOf(await readGgufFile(bomb));
    expect(problems).toEqual(["llama.block_count 2147483647 is above llama.cpp's limit of 512"]);
  });

  it("refuses a block count the tensor table cannot back, naming both counts", async () => {
    const info = await readGgufFile(await resolveDefaultModel());
    expect(problemsOf(info)).toEqual([]);
    const blocks = Math.floor(info.tensors.length / 9) + 1;
    const problems = problemsOf(withBlockCount(info, blocks));
    expect(problems).toEqual([
      `llama.block_count ${blocks} needs ${blocks * 9} block tensors, the file has ${info.tensors.length} tensors in all`,
    ]);
  });
});
