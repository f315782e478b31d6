// The training export of the native addon (native/src/addon-train.cpp), typed. The addon's main
// contract lives in backends/llamacpp/native-addon.ts; training is the one native entry used outside
// the backend, so its types stay here, next to their only caller.
import { loadNativeAddon } from "../backends/llamacpp/native-addon.js";

export interface NativeTrainOptions {
  readonly modelPath: string;
  readonly outputPath: string;
  /** Tokens the model reads per row; a multiple of 256 (llama.cpp pads contexts to 256). */
  readonly sequenceLength: number;
  /** Rows of sequenceLength + 1 tokens. */
  readonly train: Int32Array;
  readonly validation?: Int32Array;
  /** Rows per llama_opt_epoch call: the granularity of stop(). */
  readonly shardSize: number;
  readonly epochs: number;
  readonly threads: number;
  readonly seed: number;
  readonly shuffle?: boolean;
  readonly validateFirst?: boolean;
  readonly learningRate: number;
  readonly minLearningRate?: number;
  readonly warmupSteps?: number;
  readonly schedule?: "constant" | "linear" | "cosine";
  readonly weightDecay?: number;
  readonly beta1?: number;
  readonly beta2?: number;
  /** false reproduces llama.cpp's gradient accumulation across steps (for measurements only). */
  readonly clearGradients?: boolean;
  /**
   * false leaves token_embd.weight frozen, as llama.cpp's own opt_init does (for measurements only); by
   * default the addon marks it trainable too.
   */
  readonly trainEmbeddings?: boolean;
}

export interface NativeTrainProgress {
  readonly kind: "step" | "shard" | "validation";
  readonly epoch: number;
  readonly shard: number;
  readonly shardCount: number;
  readonly step: number;
  readonly totalSteps: number;
  /** Mean loss (nats per token) of the current shard so far, or of the validation set. */
  readonly loss: number;
  readonly accuracy: number;
  readonly tokensPerSecond: number;
  readonly learningRate: number;
  readonly elapsedSeconds: number;
}

export interface NativeTrainSummary {
  readonly steps: number;
  readonly epochsCompleted: number;
  readonly shardsCompleted: number;
  readonly stopped: boolean;
  readonly trainLoss: number;
  readonly trainAccuracy: number;
  readonly initialValidationLoss: number;
  readonly initialValidationAccuracy: number;
  readonly validationLoss: number;
  readonly validationAccuracy: number;
  readonly seconds: number;
  readonly tokensPerSecond: number;
  readonly trainedTensors: number;
  readonly trainedParameters: number;
}

export interface NativeTraining {
  readonly promise: Promise<NativeTrainSummary>;
  /** Stops at the next shard boundary; the weights trained so far are still written. */
  stop(): void;
}

interface TrainingAddon {
  trainModel(
    options: NativeTrainOptions,
    onProgress?: (progress: NativeTrainProgress) => void,
  ): NativeTraining;
}

export function startNativeTraining(
  options: NativeTrainOptions,
  onProgress?: (progress: NativeTrainProgress) => void,
): NativeTraining {
  const addon = loadNativeAddon() as unknown as Partial<TrainingAddon>;
  if (typeof addon.trainModel !== "function") {
    throw new Error("the native addon has no trainModel: rebuild it with `npm run build:native`");
  }
  return addon.trainModel(options, onProgress);
}
