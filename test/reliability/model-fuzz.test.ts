// The reduced model fuzz (the full run is `tessera reliability --fuzz 10000`): mutated GGUF files
// through our reader (in a worker thread of this process) and through the native loader (in a child
// process). Needs `npm run build` (the child and the worker run compiled JavaScript).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModel } from "../../src/gguf/default-model.js";
import { parseGgufBytes } from "../../src/gguf/gguf-reader.js";
import { findDuplicateTokens } from "../../src/gguf/llama-cpp-hazards.js";
import { buildFuzzSeeds, type FuzzSeed } from "../../src/reliability/fuzz-seed-models.js";
import { runModelFuzz } from "../../src/reliability/model-fuzz-runner.js";
import { fuzzCase } from "../../src/reliability/mutation-corpus.js";
import { NativeLoadHarness } from "../../src/reliability/native-load-harness.js";
import { validateBeforeNativeLoad } from "../../src/reliability/pre-load-validation.js";

const fuzzCases = 500;
let seeds: FuzzSeed[];
let folder: string;

beforeAll(async () => {
  seeds = await buildFuzzSeeds();
  folder = mkdtempSync(join(tmpdir(), "tessera-fuzz-test-"));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("the native load harness", () => {
  it("loads and generates with every unmutated seed model", async () => {
    await using harness = new NativeLoadHarness();
    for (const seed of seeds) {
      const path = join(folder, `${seed.name}.gguf`);
      writeFileSync(path, seed.bytes);
      const result = await harness.check(path);
      // The vocab files have no tensors: llama.cpp parses their tokenizer, then refuses them.
      expect(result.outcome, seed.name).toBe(seed.name.startsWith("vocab-") ? "rejected" : "generated");
    }
    expect(harness.childrenStarted).toBe(1);
  });

  it("has a pre-load validation that accepts every real model (no false alarms)", async () => {
    for (const seed of seeds.filter((candidate) => !candidate.name.startsWith("vocab-"))) {
      const path = join(folder, `${seed.name}-valid.gguf`);
      writeFileSync(path, seed.bytes);
      const info = await validateBeforeNativeLoad(path);
      expect(info.tensors.length, seed.name).toBeGreaterThan(0);
    }
    // Llama 3's 128k byte-level BPE vocabulary, as the tiny-bpe preset carries it.
    const bpe = await validateBeforeNativeLoad(await resolveModel("tiny-bpe"));
    expect(bpe.metadataByKey.get("tokenizer.ggml.model")).toMatchObject({ type: "string", value: "gpt2" });
  });

  it("counts a crash and a hang of its child and carries on with a fresh one", async () => {
    const childScript = fileURLToPath(new URL("./fixtures/misbehaving-child.mjs", import.meta.url));
    await using harness = new NativeLoadHarness({ childScript, timeoutMs: 1000 });
    expect((await harness.check("/models/fine.gguf")).outcome).toBe("generated");
    const crash = await harness.check("/models/crash.gguf");
    expect(crash).toMatchObject({ outcome: "crash", signal: "SIGSEGV" });
    const hang = await harness.check("/models/hang.gguf");
    expect(hang.outcome).toBe("hang");
    expect((await harness.check("/models/fine-again.gguf")).outcome).toBe("generated");
    expect(harness.childrenStarted).toBe(3);
  });
});

describe(`${fuzzCases} mutated GGUF files`, () => {
  it("get a typed error or load, and never crash or hang a process the validation lets through", async () => {
    const figures = await runModelFuzz({ cases: fuzzCases, seeds, runSeed: 9, timeoutMs: 15_000 });
    const report = JSON.stringify(figures.failures.slice(0, 5), null, 1);
    expect(figures.cases).toBe(fuzzCases);
    // Every family and seed took part.
    expect(Object.keys(figures.byFamily).sort()).toEqual(
      [
        "absurd-metadata",
        "bit-flip",
        "field-extreme",
        "header-start",
        "string-bytes",
        "structure",
        "truncation",
      ].sort(),
    );
    expect(Object.keys(figures.bySeed)).toHaveLength(seeds.length);
    // Our reader: success or a GgufError subclass, never another exception, a hang or runaway memory.
    expect(figures.reader.untyped, report).toBe(0);
    expect(figures.reader.hangs + figures.reader.crashes, report).toBe(0);
    // Native: typed rejections and successes only. The child runs the real loader, whose pre-load
    // check is all that stands between a file and llama.cpp: a crash there is a crash of `tessera run`.
    const native = figures.native!;
    expect(native.untyped, report).toBe(0);
    expect(native.crashes + native.hangs, report).toBe(0);
    expect(native.generated + native.rejected + native.crashes + native.hangs).toBe(fuzzCases);
    // Most mutations must be refused (a fuzzer whose files all load tests nothing).
    expect(native.rejected).toBeGreaterThan(fuzzCases / 2);
  });
});

describe("the mutation corpus", () => {
  // Defect 7: tokens that differ in JavaScript but are one text for llama.cpp (it reads them up to
  // their first NUL) passed the pre-load check and aborted in llama-vocab.cpp:2501. With that rule
  // reverted, `tessera reliability --fuzz 400` found it at case 52 (run seed 1); the corpus must keep
  // reaching such files early.
  it("makes a vocabulary whose texts collide only for llama.cpp within the first 100 cases", () => {
    const found: number[] = [];
    for (let index = 0; index < 100 && found.length === 0; index++) {
      const fuzz = fuzzCase(seeds, 1, index);
      if (fuzz.family !== "string-bytes") continue;
      let info: ReturnType<typeof parseGgufBytes>;
      try {
        info = parseGgufBytes(fuzz.bytes);
      } catch {
        continue; // invalid UTF-8 and the like: our reader refuses it before any rule runs
      }
      const tokens = info.metadataByKey.get("tokenizer.ggml.tokens");
      const distinctInJavaScript =
        tokens?.type === "array" && new Set(tokens.values).size === tokens.values.length;
      if (distinctInJavaScript && findDuplicateTokens(info).length > 0) found.push(index);
    }
    expect(found).toEqual([52]);
  });
});
