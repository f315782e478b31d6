// Options that reach a llama.cpp assertion (docs/native-assertions.md) are refused with a typed error
// before any native call, and the options whose meaning llama.cpp silently changed (penaltyLastN -1,
// tiny temperatures, seed 4294967295) do what the documentation says.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IncompatibleOptionsError } from "../../src/backends/llamacpp/errors/incompatible-options-error.js";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { vocabularyCacheDirectory } from "../../src/gguf/default-model.js";
import { writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { synthesizeLlamaModel } from "../../src/gguf/llama-synthesizer.js";
import { modelPresets } from "../../src/gguf/model-presets.js";
import { loadVocabulary } from "../../src/gguf/vocabulary.js";
import { packageRoot } from "../../src/support/package-folders.js";
import { loadTinyModel } from "./tiny-model.js";

const fixture = new URL("./fixtures/unguarded-context.mjs", import.meta.url).pathname;
const releaseAddon =
  process.env.TESSERA_NATIVE_ADDON ?? join(packageRoot(), "native", "build", "Release", "tessera.node");

describe("option guards in front of llama.cpp", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 256, threads: 1 });
    prompt = model.tokenize("The quick brown fox jumps over the lazy dog");
  });
  afterAll(() => model.dispose());

  describe("createContext", () => {
    it("refuses batchSize below sequences, naming both and the fix", async () => {
      const refused = model.createContext({ sequences: 3, batchSize: 2, contextSize: 64, threads: 1 });
      await expect(refused).rejects.toBeInstanceOf(IncompatibleOptionsError);
      await expect(refused).rejects.toThrow(/batchSize \(2\) must be >= sequences \(3\).*use batchSize >= 3/);
      await expect(refused).rejects.toSatisfy(InvalidOptionError.isInstance);
      const fitting = await model.createContext({ sequences: 3, batchSize: 3, contextSize: 64, threads: 1 });
      expect(fitting.sequences).toBe(3);
      fitting.dispose();
    });

    // The raw addon, without the TypeScript guard, checks the same options itself: before, these ended in
    // GGML_ASSERT(n_outputs_max <= cparams.n_outputs_max) and exit 134. In a child, so an abort fails the test.
    it("refuses the same options in the addon itself, without the TypeScript guard", () => {
      const options = { contextSize: 64, batchSize: 2, sequences: 3, threads: 1, batchThreads: 1 };
      const child = spawnSync(
        process.execPath,
        [
          fixture,
          releaseAddon,
          model.path,
          packageRoot(),
          JSON.stringify({ ...options, unifiedKvCache: false }),
        ],
        { encoding: "utf8", timeout: 60_000, env: { ...process.env, GGML_NO_BACKTRACE: "1" } },
      );
      expect(child.status).toBe(0);
      expect(JSON.parse(child.stdout)).toMatchObject({ ok: false, code: "ERR_INVALID_ARGUMENT" });
      expect(JSON.parse(child.stdout).message).toMatch(/batchSize must be >= sequences/);
    });

    it("keeps batches of a model without causal attention within one 512-token micro-batch", async () => {
      // GGML_ASSERT(causal_attn || n_ubatch >= n_tokens_all) aborted a 700-token prompt at batchSize 1024.
      const folder = await mkdtemp(join(tmpdir(), "tessera-noncausal-"));
      try {
        const preset = modelPresets.tiny;
        const vocabulary = await loadVocabulary(preset.vocabulary, vocabularyCacheDirectory());
        const synthetic = synthesizeLlamaModel({
          name: "non-causal tiny",
          hyperParameters: preset.hyperParameters,
          vocabulary,
          type: preset.defaultType,
          seed: 1,
        });
        synthetic.metadata.push({ key: "llama.attention.causal", value: { type: "bool", value: false } });
        const path = join(folder, "non-causal.gguf");
        await writeGgufFile(path, synthetic);
        const nonCausal = await loadLlamaModel(path);
        try {
          const refused = nonCausal.createContext({ contextSize: 2048, batchSize: 1024, threads: 1 });
          await expect(refused).rejects.toThrow(/not causal.*use batchSize <= 512/);
          const fitting = await nonCausal.createContext({ contextSize: 2048, batchSize: 512, threads: 1 });
          const longPrompt = Int32Array.from({ length: 700 }, (_, index) => 100 + index);
          const result = await fitting.generate(longPrompt, { maxTokens: 2, temperature: 0 }).collect();
          expect(result.generatedTokens).toBe(2);
        } finally {
          nonCausal.dispose();
        }
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    });

    it.each([
      [{ threads: 513 }, InvalidOptionError],
      [{ threads: 0 }, InvalidOptionError],
      [{ sequences: 257 }, InvalidOptionError],
      [{ contextSize: 2 ** 24, sequences: 256, batchSize: 256 }, IncompatibleOptionsError],
      [{ contextSize: 2 ** 24, sequences: 128, batchSize: 128 }, IncompatibleOptionsError],
      [{ contextSize: Number.NaN }, InvalidOptionError],
      [{ batchSize: 1.5 }, InvalidOptionError],
    ])("refuses %o", async (options, errorClass) => {
      await expect(model.createContext({ threads: 1, ...options })).rejects.toBeInstanceOf(errorClass);
    });
  });

  describe("generate", () => {
    async function events(options: GenerateTokensOptions): Promise<TokenEvent[]> {
      const collected: TokenEvent[] = [];
      for await (const event of context.generate(prompt, { maxTokens: 24, ignoreEos: true, ...options }))
        collected.push(event);
      return collected;
    }
    async function tokens(options: GenerateTokensOptions): Promise<number[]> {
      return (await events(options)).map((event) => event.token);
    }

    const deepGrammar = `root ::= ${"(".repeat(2000)}"a"${")".repeat(2000)}`;
    const longGrammar = `root ::= "${"a".repeat(300_000)}"`;
    it.each<[string, GenerateTokensOptions, RegExp]>([
      ["seed 4294967295", { seed: 4294967295 }, /between 0 and 4294967294 .*random seed/],
      ["temperature 1e300", { temperature: 1e300 }, /temperature/],
      ["repeatPenalty 1e-300", { repeatPenalty: 1e-300 }, /repeatPenalty/],
      ["frequencyPenalty 1e300", { frequencyPenalty: 1e300 }, /frequencyPenalty/],
      ["presencePenalty -1e300", { presencePenalty: -1e300 }, /presencePenalty/],
      ["logitBias 1e39", { logitBias: { 5: 1e39 } }, /logitBias\[5\]/],
      ["penaltyLastN above the sequence context", { penaltyLastN: 257 }, /penaltyLastN/],
      ["penaltyLastN -2", { penaltyLastN: -2 }, /penaltyLastN/],
      ["a grammar 2000 groups deep", { grammar: deepGrammar }, /nested groups/],
      ["a grammar of 300 kB", { grammar: longGrammar }, /at most 262144 bytes/],
      [
        "queueCapacity 65536 with two full captures",
        { queueCapacity: 65536, logits: "full", rawLogits: "full" },
        /queueCapacity \(65536\).*use queueCapacity <= /,
      ],
      [
        "queueCapacity 65536 with a top k of the whole vocabulary (8 bytes an entry)",
        { queueCapacity: 65536, logits: 32000, rawLogits: 32000 },
        /queueCapacity \(65536\).*512000 bytes each.*use queueCapacity <= 2097/,
      ],
    ])("refuses %s before any native work", (_label, options, message) => {
      expect(() => context.generate(prompt, options)).toThrow(message);
      expect(() => context.generate(prompt, options)).toThrow(InvalidOptionError);
      expect(context.runningGenerations).toBe(0);
    });

    it("penalizes the whole sequence for penaltyLastN -1 (llama.cpp alone read it as 0: no penalty)", async () => {
      // A bias makes the first prompt token the greedy choice; only a penalty that sees the prompt stops it.
      const favourite = prompt[0]!;
      const options = { temperature: 0, presencePenalty: 1e6, logitBias: { [favourite]: 100 } };
      const whole = await tokens({ ...options, penaltyLastN: -1 });
      const seen = new Set(prompt);
      for (const token of whole) {
        expect(seen.has(token)).toBe(false);
        seen.add(token);
      }
      // What -1 did before: the penalty sampler off, and the favourite every time.
      const off = await tokens({ ...options, penaltyLastN: 0 });
      expect(off.every((token) => token === favourite)).toBe(true);
    });

    it("decodes greedily, with finite logprobs, below the minimum temperature", async () => {
      const greedy = await events({ maxTokens: 16, temperature: 0 });
      const tiny = await events({ maxTokens: 16, temperature: 1e-40 });
      expect(tiny.map((event) => event.token)).toEqual(greedy.map((event) => event.token));
      for (const event of tiny) expect(Number.isFinite(event.logprob)).toBe(true);
    });
  });
});
