// Loads a GGUF file in llama.cpp (through node-llama-cpp's prebuilt CPU binary, one thread) and
// evaluates one step, returning the next-token probabilities: NaN or Inf logits would show as
// non-finite probabilities or a sum away from 1.
import { getLlama, type Llama } from "node-llama-cpp";

let llamaPromise: Promise<Llama> | undefined;

export function sharedLlama(): Promise<Llama> {
  llamaPromise ??= getLlama({ gpu: false, build: "never", logLevel: "error" as never });
  return llamaPromise;
}

export interface EvaluationResult {
  /** The prompt's tokens (without BOS) and the model's BOS token. */
  readonly tokens: readonly number[];
  readonly beginningOfSequence: number | null;
  readonly probabilities: readonly number[];
}

export async function evaluateOneStep(modelPath: string, prompt = "Hello world"): Promise<EvaluationResult> {
  const llama = await sharedLlama();
  const model = await llama.loadModel({ modelPath, useMmap: true });
  try {
    const context = await model.createContext({ contextSize: 128, threads: 1, batchSize: 32 });
    try {
      const tokens = model.tokenize(prompt);
      const sequence = context.getSequence();
      for await (const output of sequence.evaluateWithMetadata(
        tokens,
        { probabilities: true },
        { temperature: 0 },
      )) {
        return {
          tokens: [...tokens],
          beginningOfSequence: model.tokens.bos,
          probabilities: [...output.probabilities.values()],
        };
      }
      throw new Error("evaluation yielded nothing");
    } finally {
      await context.dispose();
    }
  } finally {
    await model.dispose();
  }
}
