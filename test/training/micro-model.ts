// A micro character-level model for training tests: the 354-token character vocabulary, 1 layer, 32
// wide, with the trainable start (llama-synthesizer.ts). Trains at thousands of tokens per second.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { characterVocabulary } from "../../src/gguf/character-vocabulary.js";
import { writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { synthesizeLlamaModel } from "../../src/gguf/llama-synthesizer.js";
import type { WritableTensorType } from "../../src/gguf/tensor-encoding.js";

/** `type` other than F32 makes a start llama.cpp's trainer cannot train (for the refusal tests). */
export async function writeMicroModel(
  folder: string,
  seed = 1,
  type: WritableTensorType = "F32",
  contextLength = 512,
): Promise<string> {
  const suffix = contextLength === 512 ? "" : `-ctx${contextLength}`;
  const path = join(
    folder,
    type === "F32" ? `micro-${seed}${suffix}.gguf` : `micro-${seed}-${type}${suffix}.gguf`,
  );
  const model = synthesizeLlamaModel({
    name: "micro",
    hyperParameters: {
      embeddingLength: 32,
      blockCount: 1,
      headCount: 2,
      headCountKv: 2,
      feedForwardLength: 64,
      contextLength,
      ropeFreqBase: 10000,
      rmsEpsilon: 1e-5,
      tiedOutput: false,
    },
    vocabulary: characterVocabulary(),
    type,
    seed,
    initialization: "trainable",
  });
  await writeGgufFile(path, model);
  return path;
}

/** The line the one-line training corpora repeat. */
export const MICRO_LINE = "the quick brown fox jumps over the lazy dog";

/** A fresh temporary folder holding a micro model and a 400-line corpus of MICRO_LINE. */
export async function writeMicroTrainingFolder(
  prefix: string,
): Promise<{ folder: string; start: string; corpus: string }> {
  const folder = await mkdtemp(join(tmpdir(), prefix));
  const start = await writeMicroModel(folder);
  const corpus = join(folder, "line.txt");
  await writeFile(corpus, `${MICRO_LINE}\n`.repeat(400));
  return { folder, start, corpus };
}
