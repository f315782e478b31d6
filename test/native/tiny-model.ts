// Shared by the native tests: one load of the generated tiny model per test file (each file runs in
// its own forked process), one thread, small contexts.

import type {
  NativeContext,
  NativeContextOptions,
  NativeModel,
} from "../../src/backends/llamacpp/addon-types.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";

export async function loadTinyModel(): Promise<LlamaModel> {
  return loadLlamaModel(await resolveDefaultModel());
}

/** log-softmax of one entry, in double precision. */
export function logSoftmaxAt(logits: ArrayLike<number>, index: number): number {
  let maximum = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < logits.length; i++) maximum = Math.max(maximum, logits[i]!);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i]! - maximum);
  return logits[index]! - maximum - Math.log(sum);
}

export function argMax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i]! > values[best]!) best = i;
  return best;
}

/** The tiny model through the raw addon (no TypeScript wrapper), for tests of the addon itself. */
export async function loadRawTinyModel(): Promise<NativeModel> {
  return loadNativeAddon().loadModel(await resolveDefaultModel(), { gpuLayers: 0, useMmap: true }).promise;
}

/** A raw context of one sequence on one thread; options override the defaults. */
export function createRawContext(
  model: NativeModel,
  options: Partial<NativeContextOptions> = {},
): Promise<NativeContext> {
  return model.createContext({
    contextSize: 256,
    batchSize: 64,
    sequences: 1,
    threads: 1,
    batchThreads: 1,
    unifiedKvCache: false,
    ...options,
  });
}
