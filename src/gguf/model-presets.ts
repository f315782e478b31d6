// Named model shapes. `tiny` makes every test fast; the other two have the exact shapes of the real
// models, so llama.cpp's speed on them is the speed it would have on the real weights.
import type { LlamaHyperParameters, LlamaInitialization } from "./llama-synthesizer.js";
import type { WritableTensorType } from "./tensor-encoding.js";
import type { PresetVocabularyName } from "./vocabulary.js";

export interface ModelPreset {
  readonly name: string;
  readonly description: string;
  readonly vocabulary: PresetVocabularyName;
  readonly hyperParameters: LlamaHyperParameters;
  readonly defaultType: WritableTensorType;
  /**
   * Where the weights come from. "random" (the default): seeded noise in a real shape, for tests, speed
   * figures and training starts; its text means nothing, and the CLI says so. "trained": weights that
   * learned something (the file's metadata carries the training record), shown without that warning.
   */
  readonly weights?: "random" | "trained";
  /** "trainable" for the starts of `tessera models train` (llama-synthesizer.ts says why). */
  readonly initialization?: LlamaInitialization;
}

export const modelPresets = {
  tiny: {
    name: "tiny",
    description: "2 layers, 64-wide, 32k SentencePiece vocabulary: ~17 MB in F32, loads in milliseconds",
    vocabulary: "llama-spm",
    defaultType: "F32",
    hyperParameters: {
      embeddingLength: 64,
      blockCount: 2,
      headCount: 4,
      headCountKv: 2,
      feedForwardLength: 256,
      contextLength: 2048,
      ropeFreqBase: 10000,
      rmsEpsilon: 1e-5,
      tiedOutput: false,
    },
  },
  "tiny-char": {
    name: "tiny-char",
    description:
      "a character-level start for training: 354-token SentencePiece-style vocabulary (bytes + printable ASCII), 4 layers, 128 wide",
    vocabulary: "characters",
    defaultType: "F32",
    initialization: "trainable",
    hyperParameters: {
      embeddingLength: 128,
      blockCount: 4,
      headCount: 4,
      headCountKv: 4,
      feedForwardLength: 384,
      contextLength: 1024,
      ropeFreqBase: 10000,
      rmsEpsilon: 1e-5,
      tiedOutput: false,
    },
  },
  "tiny-bpe": {
    name: "tiny-bpe",
    description:
      "the tiny shape with Llama 3's 128k byte-level BPE vocabulary, tied output: ~24 MB in F16 (8 MB of it the BPE merges)",
    vocabulary: "llama-bpe",
    defaultType: "F16",
    hyperParameters: {
      embeddingLength: 64,
      blockCount: 2,
      headCount: 4,
      headCountKv: 2,
      feedForwardLength: 256,
      contextLength: 2048,
      ropeFreqBase: 500000,
      rmsEpsilon: 1e-5,
      tiedOutput: true,
    },
  },
  "llama-3.2-1b": {
    name: "llama-3.2-1b",
    description:
      "the shape of Llama 3.2 1B: 16 layers, 2048 wide, 32/8 heads, 8192 FFN, 128k BPE vocabulary, tied output",
    vocabulary: "llama-bpe",
    defaultType: "Q4_0",
    hyperParameters: {
      embeddingLength: 2048,
      blockCount: 16,
      headCount: 32,
      headCountKv: 8,
      feedForwardLength: 8192,
      contextLength: 131072,
      ropeFreqBase: 500000,
      rmsEpsilon: 1e-5,
      tiedOutput: true,
    },
  },
  "llama-3.1-8b": {
    name: "llama-3.1-8b",
    description:
      "the shape of Llama 3.1 8B: 32 layers, 4096 wide, 32/8 heads, 14336 FFN, 128k BPE vocabulary",
    vocabulary: "llama-bpe",
    defaultType: "Q4_0",
    hyperParameters: {
      embeddingLength: 4096,
      blockCount: 32,
      headCount: 32,
      headCountKv: 8,
      feedForwardLength: 14336,
      contextLength: 131072,
      ropeFreqBase: 500000,
      rmsEpsilon: 1e-5,
      tiedOutput: false,
    },
  },
} as const satisfies Record<string, ModelPreset>;

export type ModelPresetName = keyof typeof modelPresets;

export const modelPresetNames = Object.keys(modelPresets) as ModelPresetName[];

export function isModelPresetName(name: string): name is ModelPresetName {
  return Object.hasOwn(modelPresets, name);
}

/** True unless the preset says its weights were trained: the CLI warns that such output is noise. */
export function presetHasRandomWeights(preset: ModelPreset): boolean {
  return preset.weights !== "trained";
}
