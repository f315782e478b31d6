// Files the fuzzer found that crashed llama.cpp (an abort inside the process) or hung our reader, each
// kept small (the 59 kB micro BPE model, mutated). `validateBeforeNativeLoad` refuses all of them, and
// so does the loader (`loadLlamaModel` reads the header and runs `findLlamaCppHazards` before
// llama.cpp sees the file): loading them natively gives a typed error, not a crash.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { GgufModelMismatchError } from "../../src/gguf/errors/gguf-model-mismatch-error.js";
import { NativeLoadHarness } from "../../src/reliability/native-load-harness.js";
import { validateBeforeNativeLoad } from "../../src/reliability/pre-load-validation.js";
import { ReaderCheckPool } from "../../src/reliability/reader-check-pool.js";

const folder = fileURLToPath(new URL("./regressions/", import.meta.url));

/** File, what was mutated, and where llama.cpp (or our reader) fails on it. */
const regressions: readonly (readonly [string, string, string])[] = [
  [
    "duplicate-token",
    "two tokens with the same text",
    "llama-vocab.cpp:2501 GGML_ASSERT(id_to_token.size() == token_to_id.size())",
  ],
  [
    "empty-token-collision",
    'an empty token (renamed "[EMPTY_89]") next to a token "[EMPTY_89]"',
    "llama-vocab.cpp:2501, same assert",
  ],
  // Defect 7: llama.cpp reads token texts, keys and string values as C strings (cut at the first NUL
  // byte), so texts that JavaScript sees as different can be one text to it.
  [
    "token-text-equal-up-to-nul",
    'token 300 = token 200\'s text + "\\0x"',
    "llama-vocab.cpp:2501, same assert",
  ],
  [
    "token-starting-with-nul",
    'token 89 = "\\0x" (read as empty, renamed "[EMPTY_89]") next to a token "[EMPTY_89]"',
    "llama-vocab.cpp:2501, same assert",
  ],
  [
    "key-block-count-after-nul",
    'a key "llama.block_count\\0x" = 2^31-1 before the real one (gguf_find_key compares with strcmp)',
    "llama-model.cpp:1226 n_layer <= 512 at load",
  ],
  [
    "tokenizer-none-before-nul",
    'tokenizer.ggml.model = "none\\0gpt2"',
    "llama-vocab.cpp:3375 Tokenizer not initialized, at the first tokenize",
  ],
  [
    "rope-scaling-type-unknown",
    'llama.rope.scaling.type = "bogus"',
    "llama-model.cpp:1318 GGML_ASSERT(rope_scaling_type_train != UNSPECIFIED) at load",
  ],
  [
    "rms-epsilon-nan",
    "llama.attention.layer_norm_rms_epsilon = NaN",
    "ggml-cpu/ops.cpp:3949 GGML_ASSERT(eps >= 0.0f) at the first decode",
  ],
  [
    "integer-norm-tensor",
    "blk.0.attn_norm.weight typed I32",
    "ggml-cpu/binary-ops.cpp:135 unsupported types, at the first decode",
  ],
  [
    "tokenizer-none",
    'tokenizer.ggml.model = "none"',
    "llama-vocab.cpp:3375 Tokenizer not initialized, at the first tokenize",
  ],
  [
    "spm-tokenizer-on-bpe-vocab",
    'tokenizer.ggml.model = "llama" over a BPE vocabulary',
    "std::out_of_range from token_to_id.at() through the addon's tokenize: terminate",
  ],
  [
    "expert-count-without-used",
    "llama.expert_count = 8, no expert_used_count",
    "llama-model.cpp:1262 GGML_ASSERT(n_expert_used_max > 0) at load",
  ],
  [
    "wpm-tokenizer-with-byte-tokens",
    'tokenizer.ggml.model = "bert" over a vocabulary with byte tokens',
    'llama-vocab.cpp:3163 GGML_ABORT("fatal error") in token_to_byte, at the first piece',
  ],
  [
    "block-count-2-31",
    "llama.block_count = 2^31-1",
    "llama-model.cpp:1226 n_layer <= 512 at load; our validateLlamaModel loops 2^31 times",
  ],
];

const harness = new NativeLoadHarness({ timeoutMs: 15_000 });
afterAll(() => harness.close());

describe("regression files found by the model fuzzer", () => {
  it.each(regressions)("%s (%s) is refused by the pre-load validation", async (name) => {
    const error = await validateBeforeNativeLoad(join(folder, `${name}.gguf`)).catch(
      (caught: unknown) => caught,
    );
    expect(GgufModelMismatchError.isInstance(error), String(error)).toBe(true);
  });

  it.each(regressions)(
    "%s (%s) is refused by loadLlamaModel without a crash [llama.cpp failed at: %s]",
    async (name) => {
      const result = await harness.check(join(folder, `${name}.gguf`));
      expect(result.outcome).toBe("rejected");
    },
  );

  // validateLlamaModel (src/gguf/llama-model-validation.ts) used to build the expected tensor list
  // from llama.block_count before comparing it with the file, so 2^31-1 blocks allocated until the
  // heap was exhausted; it now checks the block count against the limit and the tensor count first.
  it("block-count-2-31 gets a typed error from our reader and model validation in time", async () => {
    const pool = new ReaderCheckPool({ timeoutMs: 5000, heapMegabytes: 128 });
    try {
      const result = await pool.check(join(folder, "block-count-2-31.gguf"));
      expect(result.outcome).toBe("rejected");
    } finally {
      await pool.close();
    }
  });

  // Found by the cancellation soak: native/src/addon-context.cpp ~AddonContext called
  // loop_->close() -> ThreadSafeFunction::Release() while Node tore the environment down; with two
  // contexts created in a process, uv_mutex_lock aborted at exit (code 134) even after dispose().
  // Dispose() now releases the function, and a finalizer marks it so the destructor skips a freed one.
  it("a process that used two llama.cpp contexts exits with code 0", () => {
    const script = fileURLToPath(new URL("./fixtures/two-contexts-exit.mjs", import.meta.url));
    const result = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 60_000 });
    expect(result.stdout).toContain("generated with two contexts");
    expect({ status: result.status, signal: result.signal }).toEqual({ status: 0, signal: null });
  });

  it("a process that leaves two llama.cpp contexts undisposed exits with code 0", () => {
    const script = fileURLToPath(new URL("./fixtures/two-contexts-exit.mjs", import.meta.url));
    const result = spawnSync(process.execPath, [script, "--keep"], { encoding: "utf8", timeout: 60_000 });
    expect(result.stdout).toContain("generated with two contexts");
    expect({ status: result.status, signal: result.signal }).toEqual({ status: 0, signal: null });
  });
});
