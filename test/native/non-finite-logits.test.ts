import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NonFiniteLogitsError } from "../../src/backends/llamacpp/errors/non-finite-logits-error.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { vocabularyCacheDirectory } from "../../src/gguf/default-model.js";
import { writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { synthesizeLlamaModel } from "../../src/gguf/llama-synthesizer.js";
import { modelPresets } from "../../src/gguf/model-presets.js";
import { loadVocabulary } from "../../src/gguf/vocabulary.js";

// A real GGUF whose output norm is NaN: llama.cpp loads it, and every logit it computes is NaN.
describe("a model that produces NaN logits", () => {
  let folder: string;
  let model: LlamaModel;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "tessera-nan-"));
    const preset = modelPresets.tiny;
    const vocabulary = await loadVocabulary(preset.vocabulary, vocabularyCacheDirectory());
    const synthesized = synthesizeLlamaModel({
      name: "nan",
      hyperParameters: preset.hyperParameters,
      vocabulary,
      type: "F32",
      seed: 1,
    });
    const tensors = synthesized.tensors.map((tensor) =>
      tensor.name === "output_norm.weight"
        ? {
            ...tensor,
            data: () => [new Uint8Array(new Float32Array(tensor.shape[0]!).fill(Number.NaN).buffer)],
          }
        : tensor,
    );
    const path = join(folder, "nan.gguf");
    await writeGgufFile(path, { metadata: synthesized.metadata, tensors });
    model = await loadLlamaModel(path);
  });
  afterAll(async () => {
    model?.dispose();
    await rm(folder, { recursive: true, force: true });
  });

  it("reports NonFiniteLogitsError instead of sampling, and the context stays usable", async () => {
    const context = await model.createContext({ contextSize: 128, threads: 1 });
    const prompt = model.tokenize("Hello");
    for (const options of [{ temperature: 0 }, { temperature: 0.8, topK: 5, seed: 1 }]) {
      const stream = context.generate(prompt, { ...options, maxTokens: 4 });
      const error = await stream.collect().catch((caught) => caught);
      expect(NonFiniteLogitsError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/NaN or infinite logits at generated token 0/);
    }
    expect(context.sequenceTokens(0).length).toBe(0);
  });
});
