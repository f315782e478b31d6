// The loader itself (not only the reliability harness) refuses the fuzzer's crash files with a typed
// error that says the file is malformed or unsupported and what is wrong, and still loads a good model.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ModelLoadError } from "../../src/backends/llamacpp/errors/model-load-error.js";
import { UnsupportedModelFileError } from "../../src/backends/llamacpp/errors/unsupported-model-file-error.js";
import { loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { findLlamaCppHazards } from "../../src/gguf/llama-cpp-hazards.js";
import { scratchFolder } from "../gguf/crafted-files.js";

const folder = fileURLToPath(new URL("./regressions/", import.meta.url));
const scratch = scratchFolder();
afterAll(() => scratch.remove());

/** File, and a word the refusal must name (what is wrong). */
const cases: readonly (readonly [string, RegExp])[] = [
  ["duplicate-token", /same text/],
  ["empty-token-collision", /\[EMPTY_89\]/],
  ["rms-epsilon-nan", /layer_norm_rms_epsilon is NaN/],
  ["integer-norm-tensor", /blk\.0\.attn_norm\.weight has type I32/],
  ["tokenizer-none", /tokenizer\.ggml\.model is "none"/],
  ["spm-tokenizer-on-bpe-vocab", /lacks \d+ of the 256 byte tokens/],
  ["expert-count-without-used", /expert_used_count is 0/],
  ["wpm-tokenizer-with-byte-tokens", /"bert" cannot decode byte tokens/],
  ["block-count-2-31", /block_count is 2147483647/],
];

describe("loadLlamaModel refuses files that would crash llama.cpp", () => {
  it.each(cases)("%s gets an UnsupportedModelFileError naming the problem", async (name, reason) => {
    const path = join(folder, `${name}.gguf`);
    const error = await loadLlamaModel(path).catch((caught: unknown) => caught);
    expect(UnsupportedModelFileError.isInstance(error), String(error)).toBe(true);
    expect(ModelLoadError.isInstance(error)).toBe(true);
    const refusal = error as UnsupportedModelFileError;
    expect(refusal.message).toContain("malformed or unsupported");
    expect(refusal.problems.join("; ")).toMatch(reason);
  });

  it("refuses a file whose header does not parse, before llama.cpp sees it", async () => {
    const path = join(scratch.path, "not-gguf.gguf");
    await writeFile(path, "this is not a GGUF file at all, just text\n");
    const error = await loadLlamaModel(path).catch((caught: unknown) => caught);
    expect(UnsupportedModelFileError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toContain("GGUF header does not parse");
  });

  it("finds no hazard in the default model, and loads it", async () => {
    const path = await resolveDefaultModel();
    expect(findLlamaCppHazards(await readGgufFile(path))).toEqual([]);
    await using model = await loadLlamaModel(path);
    expect(model.tokenize("Hello").length).toBeGreaterThan(0);
  });
});
