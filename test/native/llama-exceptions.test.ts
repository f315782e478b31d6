// A C++ exception thrown inside llama.cpp (here std::out_of_range from a SentencePiece tokenizer over a
// vocabulary without byte tokens) must reach JavaScript as an error, not end the process. The model is
// loaded through the raw addon, skipping the loader's pre-load checks that would refuse it; the calls
// run in a child process so that a crash fails this test instead of the runner.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/support/package-folders.js";

const run = promisify(execFile);
const fixture = new URL("./fixtures/llama-exceptions.mjs", import.meta.url).pathname;
const model = new URL("../reliability/regressions/spm-tokenizer-on-bpe-vocab.gguf", import.meta.url).pathname;

describe("C++ exceptions from llama.cpp", () => {
  it("become coded JavaScript errors and the process exits normally", async () => {
    const { stdout } = await run(process.execPath, [fixture, model, packageRoot()], { timeout: 60_000 });
    const results = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(results.tokenize).toMatchObject({ ok: false, code: "ERR_TOKENIZE" });
    expect(results.tokenize.message).toContain("llama.cpp failed to tokenize the text");
    // Calls that do not reach the failing lookup keep working on the same model.
    expect(results.detokenize).toMatchObject({ ok: true });
    expect(results.tokenToPiece).toMatchObject({ ok: true, length: 1 });
    expect(results.longestPieceBytes).toMatchObject({ ok: true });
  });
});
