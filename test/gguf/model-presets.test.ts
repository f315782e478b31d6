import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Template } from "@huggingface/jinja";
import { readGgufFileInfo } from "node-llama-cpp";
import { afterAll, describe, expect, it } from "vitest";
import { generatePresetModel, vocabularyCacheDirectory } from "../../src/gguf/default-model.js";
import { encodeGgufHeader } from "../../src/gguf/gguf-header-encoder.js";
import { parseGgufHeader } from "../../src/gguf/gguf-header-parser.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { ggufPlainValue } from "../../src/gguf/gguf-value.js";
import { validateLlamaModel } from "../../src/gguf/llama-model-validation.js";
import { synthesizeLlamaModel } from "../../src/gguf/llama-synthesizer.js";
import { type modelPresetNames, modelPresets } from "../../src/gguf/model-presets.js";
import { writableTensorTypes } from "../../src/gguf/tensor-encoding.js";
import { loadVocabulary } from "../../src/gguf/vocabulary.js";
import { scratchFolder } from "./crafted-files.js";

const scratch = scratchFolder();
afterAll(() => scratch.remove());

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

async function headerOf(
  preset: (typeof modelPresetNames)[number],
  type: (typeof writableTensorTypes)[number],
) {
  const definition = modelPresets[preset];
  const vocabulary = await loadVocabulary(definition.vocabulary, vocabularyCacheDirectory());
  const model = synthesizeLlamaModel({
    name: preset,
    hyperParameters: definition.hyperParameters,
    vocabulary,
    type,
    seed: 1,
  });
  return { layout: encodeGgufHeader(model.metadata, model.tensors), vocabulary };
}

// Parameter counts of the real models (Hugging Face model cards / config.json arithmetic).
const expectedParameters: Record<string, number> = {
  "llama-3.2-1b": 1_235_814_400,
  "llama-3.1-8b": 8_030_261_248,
};

describe("model presets", () => {
  for (const preset of ["llama-3.2-1b", "llama-3.1-8b"] as const) {
    for (const type of writableTensorTypes) {
      it(`${preset} ${type}: a streamed header with the real model's shape, read alike by both readers`, async () => {
        const { layout } = await headerOf(preset, type);
        const path = scratch.file(`${preset}-${type}.header.gguf`, layout.header);
        // The header alone parses once the parser is told the size the whole file will have.
        const parsed = parseGgufHeader(layout.header, layout.totalBytes);
        validateLlamaModel(parsed);
        const parameters = parsed.tensors.reduce((total, tensor) => total + tensor.elementCount, 0);
        expect(parameters).toBe(expectedParameters[preset]);
        const hyper = modelPresets[preset].hyperParameters;
        const get = (key: string) => ggufPlainValue(parsed.metadataByKey.get(key)!);
        expect(get("llama.block_count")).toBe(hyper.blockCount);
        expect(get("llama.embedding_length")).toBe(hyper.embeddingLength);
        expect(get("llama.attention.head_count")).toBe(hyper.headCount);
        expect(get("llama.attention.head_count_kv")).toBe(hyper.headCountKv);
        expect(get("llama.feed_forward_length")).toBe(hyper.feedForwardLength);
        expect(get("llama.vocab_size")).toBe(128256);
        expect(parsed.tensors.some((tensor) => tensor.name === "output.weight")).toBe(!hyper.tiedOutput);
        const matrices = parsed.tensors.filter((tensor) => tensor.shape.length === 2);
        expect(new Set(matrices.map((tensor) => tensor.type))).toEqual(new Set([type]));
        expect(parsed.tensorDataOffset).toBe(layout.header.length);
        // node-llama-cpp reads the same header (once per preset: the types only change the tensor table).
        if (type === "Q4_0") {
          const theirs = await readGgufFileInfo(path, { readTensorInfo: true });
          expect(theirs.tensorInfo?.map((tensor) => tensor.dimensions.map(Number))).toEqual(
            parsed.tensors.map((tensor) => tensor.shape),
          );
          const theirLlama = (theirs.metadata as { llama: { block_count: number } }).llama;
          expect(theirLlama.block_count).toBe(hyper.blockCount);
        }
      });
    }
  }

  it("llama-3.2-1b in q4_0 is about 700 MB", async () => {
    const { layout } = await headerOf("llama-3.2-1b", "Q4_0");
    expect(layout.totalBytes).toBeGreaterThan(690e6);
    expect(layout.totalBytes).toBeLessThan(710e6);
  });

  it("copies the tokenizer from the bundled vocabulary exactly", async () => {
    const path = join(scratch.path, "tiny-copy.gguf");
    await generatePresetModel("tiny", path, { type: "Q4_0" });
    const model = await readGgufFile(path);
    const vocabulary = await loadVocabulary("llama-spm", vocabularyCacheDirectory());
    for (const entry of vocabulary.entries) {
      if (entry.key === "tokenizer.ggml.add_bos_token") continue;
      expect(model.metadataByKey.get(entry.key), entry.key).toEqual(entry.value);
    }
    validateLlamaModel(model);
  });

  it("writes the same bytes for the same seed, other bytes for another seed", async () => {
    const first = join(scratch.path, "seed-a.gguf");
    const second = join(scratch.path, "seed-b.gguf");
    const other = join(scratch.path, "seed-c.gguf");
    await generatePresetModel("tiny", first, { type: "Q8_0", seed: 7 });
    await generatePresetModel("tiny", second, { type: "Q8_0", seed: 7 });
    await generatePresetModel("tiny", other, { type: "Q8_0", seed: 8 });
    expect(sha256(second)).toBe(sha256(first));
    expect(sha256(other)).not.toBe(sha256(first));
  });

  it("carries a chat template that renders with a sandboxed Jinja interpreter", async () => {
    for (const preset of ["tiny", "tiny-bpe"] as const) {
      const { layout } = await headerOf(preset, "F32");
      const info = parseGgufHeader(layout.header, layout.totalBytes);
      const template = ggufPlainValue(info.metadataByKey.get("tokenizer.chat_template")!) as string;
      const tokens = ggufPlainValue(info.metadataByKey.get("tokenizer.ggml.tokens")!) as string[];
      const bosId = ggufPlainValue(info.metadataByKey.get("tokenizer.ggml.bos_token_id")!) as number;
      const eosId = ggufPlainValue(info.metadataByKey.get("tokenizer.ggml.eos_token_id")!) as number;
      const rendered = new Template(template).render({
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi" },
          { role: "assistant", content: "Hello." },
          { role: "user", content: "Bye" },
        ],
        add_generation_prompt: true,
        bos_token: tokens[bosId],
        eos_token: tokens[eosId],
      });
      expect(rendered.startsWith(tokens[bosId]!)).toBe(true);
      expect(rendered).toContain("Be brief.");
      expect(rendered).toContain("Bye");
      // Every special marker the template uses is a single token of its vocabulary.
      for (const marker of rendered.match(/<\|[a-z_]+\|>/g) ?? []) expect(tokens).toContain(marker);
    }
  });
});
