// The addon asks Linux for transparent huge pages for the memory llama.cpp allocates while loading a
// model (a quantized model's repacked weights) and creating a context (KV cache, compute buffers):
// native/src/huge-pages.h. On a VM where a TLB miss is dear, the 1B Q4_0 model decoded 3× faster on them
// (docs/native.md, "Huge pages"). These tests check that what `hugePages` reports is what the kernel did,
// that turning it off leaves the memory alone, and that it never changes an answer.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveModel, vocabularyCacheDirectory } from "../../src/gguf/default-model.js";
import { writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { synthesizeLlamaModel } from "../../src/gguf/llama-synthesizer.js";
import { modelPresets } from "../../src/gguf/model-presets.js";
import { loadVocabulary } from "../../src/gguf/vocabulary.js";

const linux = process.platform === "linux";
const mib = 1 << 20;

/** Bytes of this process's anonymous memory on huge pages (/proc/self/smaps_rollup). */
function anonymousHugePageBytes(): number {
  const match = /^AnonHugePages:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/smaps_rollup", "utf8"));
  return match === null ? 0 : Number(match[1]) * 1024;
}

async function greedyTokens(model: LlamaModel): Promise<number[]> {
  const context = await model.createContext({ contextSize: 256, threads: 1, flashAttention: "off" });
  try {
    const tokens: number[] = [];
    const prompt = model.tokenize("river stone garden letter window morning silver market");
    for await (const event of context.generate(prompt, { temperature: 0, maxTokens: 8, ignoreEos: true })) {
      tokens.push(event.token);
    }
    return tokens;
  } finally {
    context.dispose();
  }
}

describe.runIf(linux)("huge pages on Linux", () => {
  // Q4_0 is repacked at load into anonymous memory (the CPU backend's interleaved layout), the memory
  // this is for; an F32 model's weights stay in the mapped file. The presets' Q4_0 layers are too small
  // to count (tiny-bpe's repacked weights are ~64 KB: what its load reports is the loader thread's malloc
  // arena), so this test writes the tiny shape 1024 wide: ~37 MB of repacked layers.
  const folder = mkdtempSync(join(tmpdir(), "tessera-huge-pages-model-"));
  const path = join(folder, "wide-q4_0.gguf");
  beforeAll(async () => {
    const tiny = modelPresets.tiny;
    const vocabulary = await loadVocabulary(tiny.vocabulary, vocabularyCacheDirectory());
    const model = synthesizeLlamaModel({
      name: "tiny, 1024 wide (huge-pages test)",
      hyperParameters: {
        ...tiny.hyperParameters,
        embeddingLength: 1024,
        feedForwardLength: 4096,
        headCount: 8,
        headCountKv: 8,
      },
      vocabulary,
      type: "Q4_0",
      seed: 1,
    });
    await writeGgufFile(path, model);
  }, 60_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("a load reports the repacked weights it advised, and the kernel holds them on huge pages", async () => {
    const before = anonymousHugePageBytes();
    const model = await loadLlamaModel(path);
    try {
      const advice = model.hugePages;
      expect(advice.requested).toBe(true);
      expect(advice.supported).toBe(true);
      // ~37 MB of repacked layers; only whole 2 MiB pages of new ranges of 8 MiB or more count.
      expect(advice.advisedBytes).toBeGreaterThanOrEqual(32 * mib);
      expect(advice.advisedBytes % (2 * mib)).toBe(0);
      if (advice.error === null) {
        // The weights were written after the advice (at llama.cpp's first progress call), so they are on
        // huge pages, and the process's huge-page memory grew by as much (khugepaged may add more).
        expect(advice.collapsedBytes).toBeGreaterThan(0);
        expect(anonymousHugePageBytes() - before).toBeGreaterThanOrEqual(advice.collapsedBytes);
      } else {
        // A kernel before 6.1 (no MADV_COLLAPSE) or no free huge page: said, not hidden.
        expect(advice.error).toMatch(/^E[A-Z]+$|^errno \d+$/);
      }
    } finally {
      await model[Symbol.asyncDispose]();
    }
  });

  it("hugePages: false advises nothing and leaves the process's huge-page memory as it was", async () => {
    const before = anonymousHugePageBytes();
    const model = await loadLlamaModel(path, { hugePages: false });
    try {
      expect(model.hugePages).toEqual({
        requested: false,
        supported: true,
        advisedBytes: 0,
        collapsedBytes: 0,
        error: null,
      });
      const context = await model.createContext({ contextSize: 8192, threads: 1 });
      expect(context.hugePages.advisedBytes).toBe(0);
      context.dispose();
      // Nothing else in this process asks for huge pages (transparent_hugepage=madvise, the usual
      // default); where the system gives them to all memory ("always") this cannot be told apart.
      const setting = "/sys/kernel/mm/transparent_hugepage/enabled";
      if (existsSync(setting) && readFileSync(setting, "utf8").includes("[madvise]")) {
        expect(anonymousHugePageBytes()).toBeLessThanOrEqual(before);
      }
    } finally {
      await model[Symbol.asyncDispose]();
    }
  });

  it("a context's buffers are advised, and not collapsed while llama.cpp has not written them", async () => {
    const model = await loadLlamaModel(path);
    try {
      // The output buffer alone is batchSize × vocabulary floats (512 × 32k × 4 B = 64 MiB), and 8192
      // cells of KV cache 32 MiB more at this width: memory no token has touched yet.
      const context = await model.createContext({ contextSize: 8192, threads: 1 });
      const advice = context.hugePages;
      expect(advice.requested).toBe(true);
      expect(advice.advisedBytes).toBeGreaterThanOrEqual(16 * mib);
      expect(advice.collapsedBytes).toBeLessThan(advice.advisedBytes);
      // Untouched pages are skipped rather than refused by the kernel one by one.
      expect(advice.error).toBeNull();
      context.dispose();
    } finally {
      await model[Symbol.asyncDispose]();
    }
  });

  it("the answer is the same token for token with and without huge pages", async () => {
    const on = await loadLlamaModel(path);
    const off = await loadLlamaModel(path, { hugePages: false });
    try {
      expect(await greedyTokens(on)).toEqual(await greedyTokens(off));
    } finally {
      await on[Symbol.asyncDispose]();
      await off[Symbol.asyncDispose]();
    }
  });
});

describe("the hugePages option", () => {
  it("is refused in its own name when it is not a boolean", async () => {
    await expect(loadLlamaModel(await resolveModel("tiny"), { hugePages: "yes" as never })).rejects.toThrow(
      InvalidOptionError,
    );
    await expect(loadLlamaModel(await resolveModel("tiny"), { hugePages: 1 as never })).rejects.toThrow(
      /hugePages/,
    );
    expect(() => new LlamaCppBackend({ hugePages: "on" as never })).toThrow(/hugePages/);
  });

  it.runIf(!linux)("reports unsupported outside Linux", async () => {
    const model = await loadLlamaModel(await resolveModel("tiny"));
    expect(model.hugePages.supported).toBe(false);
    expect(model.hugePages.advisedBytes).toBe(0);
    await model[Symbol.asyncDispose]();
  });

  it("reaches the model through LlamaCppBackend", async () => {
    const backend = await LlamaCppBackend.create({
      model: await resolveModel("tiny-bpe:q4_0"),
      threads: 1,
      contextSize: 256,
      sequences: 1,
      hugePages: false,
    });
    try {
      expect(backend.model.hugePages.requested).toBe(false);
      expect(backend.context.hugePages.requested).toBe(false);
    } finally {
      await backend.dispose();
    }
  });
});
