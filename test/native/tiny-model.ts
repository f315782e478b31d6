// Shared by the native tests: one load of the generated tiny model per test file (each file runs in
// its own forked process), one thread, small contexts.

import type {
  NativeContext,
  NativeContextOptions,
  NativeModel,
} from "../../src/backends/llamacpp/addon-types.js";
import type { LlamaContext, LlamaContextOptions } from "../../src/backends/llamacpp/llama-context.js";
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";

export async function loadTinyModel(): Promise<LlamaModel> {
  return loadLlamaModel(await resolveDefaultModel());
}

/** The tiny model, one context on it, and a prompt tokenized by it. */
export async function openTinyContext(
  options: LlamaContextOptions,
  text: string,
): Promise<{ model: LlamaModel; context: LlamaContext; prompt: Int32Array }> {
  const model = await loadTinyModel();
  const context = await model.createContext(options);
  return { model, context, prompt: model.tokenize(text) };
}

/** Every event of one generation: 12 tokens, EOS ignored, unless options say otherwise. */
export async function generateEvents(
  context: LlamaContext,
  prompt: Int32Array,
  options: GenerateTokensOptions,
): Promise<TokenEvent[]> {
  const events: TokenEvent[] = [];
  for await (const event of context.generate(prompt, { ignoreEos: true, maxTokens: 12, ...options }))
    events.push(event);
  return events;
}

/** Greedy, with three raw candidates per token so a fork can take another one (alternativeOf). */
export const greedyWithCandidates = {
  temperature: 0,
  ignoreEos: true,
  rawLogits: 3,
  queueCapacity: 4,
} as const;

/** Any token other than the one chosen: the second raw candidate. */
export function alternativeOf(event: TokenEvent): number {
  return Array.from(event.rawLogits!.topIds!).find((id) => id !== event.token)!;
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
