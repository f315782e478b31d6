// A micro character-level model for training tests: the 354-token character vocabulary, 1 layer, 32
// wide, with the trainable start (llama-synthesizer.ts). Trains at thousands of tokens per second.
import { join } from "node:path";
import { characterVocabulary } from "../../src/gguf/character-vocabulary.js";
import { writeGgufFile } from "../../src/gguf/gguf-writer.js";
import { synthesizeLlamaModel } from "../../src/gguf/llama-synthesizer.js";

export async function writeMicroModel(folder: string, seed = 1): Promise<string> {
  const path = join(folder, `micro-${seed}.gguf`);
  const model = synthesizeLlamaModel({
    name: "micro",
    hyperParameters: {
      embeddingLength: 32,
      blockCount: 1,
      headCount: 2,
      headCountKv: 2,
      feedForwardLength: 64,
      contextLength: 512,
      ropeFreqBase: 10000,
      rmsEpsilon: 1e-5,
      tiedOutput: false,
    },
    vocabulary: characterVocabulary(),
    type: "F32",
    seed,
    initialization: "trainable",
  });
  await writeGgufFile(path, model);
  return path;
}
