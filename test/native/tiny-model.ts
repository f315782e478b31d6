// Shared by the native tests: one load of the generated tiny model per test file (each file runs in
// its own forked process), one thread, small contexts.
import { type LlamaModel, loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
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
