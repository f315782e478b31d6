// The reduced model fuzz (the full run is `tessera reliability --fuzz 10000`): mutated GGUF files
// through our reader (in a worker thread of this process) and through the native loader (in a child
// process). Needs `npm run build` (the child and the worker run compiled JavaScript).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveModel } from "../../src/gguf/default-model.js";
import { buildFuzzSeeds, type FuzzSeed } from "../../src/reliability/fuzz-seed-models.js";
import { runModelFuzz } from "../../src/reliability/model-fuzz-runner.js";
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
      ["bit-flip", "field-extreme", "header-start", "structure", "truncation"].sort(),
    );
    expect(Object.keys(figures.bySeed)).toHaveLength(seeds.length);
    // Our reader: success or a GgufError subclass, never another exception, a hang or runaway memory.
    expect(figures.reader.untyped, report).toBe(0);
    expect(figures.reader.hangs + figures.reader.crashes, report).toBe(0);
    // Native: typed rejections and successes; any crash or hang must be one the pre-load validation stops.
    const native = figures.native!;
    expect(native.untyped, report).toBe(0);
    expect(native.crashes + native.hangs, report).toBe(native.preventedByValidation);
    expect(native.generated + native.rejected + native.crashes + native.hangs).toBe(fuzzCases);
    // Most mutations must be refused (a fuzzer whose files all load tests nothing).
    expect(native.rejected).toBeGreaterThan(fuzzCases / 2);
  });
});
