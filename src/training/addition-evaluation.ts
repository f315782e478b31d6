// Exact-match accuracy of a model on held-out addition problems, prompted as it was trained (BOS, then
// `a+b=`), answers read up to the newline. Problems run 8 at a time as parallel sequences of one
// context, so they decode in one batch per step.
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { type AdditionProblem, isCorrectAddition } from "./addition-task.js";

export interface AdditionEvaluationOptions {
  /** 0 = greedy. */
  readonly temperature: number;
  readonly seed?: number;
  readonly threads?: number;
}

export interface AdditionEvaluation {
  readonly correct: number;
  readonly total: number;
  readonly accuracy: number;
  /** The first few completions, for a human to look at. */
  readonly examples: readonly string[];
}

const parallel = 8;

export async function evaluateAddition(
  modelPath: string,
  problems: readonly AdditionProblem[],
  options: AdditionEvaluationOptions,
): Promise<AdditionEvaluation> {
  const model = await loadLlamaModel(modelPath);
  try {
    const context = await model.createContext({
      contextSize: 64,
      sequences: parallel,
      threads: options.threads ?? 1,
    });
    try {
      let correct = 0;
      const examples: string[] = [];
      for (let first = 0; first < problems.length; first += parallel) {
        const batch = problems.slice(first, first + parallel);
        const completions = await Promise.all(
          batch.map(async (item, index) => {
            const stream = context.generate(model.tokenize(item.prompt), {
              temperature: options.temperature,
              seed: (options.seed ?? 1) + first + index,
              maxTokens: item.answer.length + 1,
            });
            return (await stream.collect()).text;
          }),
        );
        completions.forEach((completion, index) => {
          const item = batch[index]!;
          if (isCorrectAddition(item, completion)) correct++;
          if (examples.length < 6) examples.push(`${item.prompt}${completion.split("\n", 1)[0]}`);
        });
      }
      return { correct, total: problems.length, accuracy: correct / Math.max(1, problems.length), examples };
    } finally {
      context.dispose();
    }
  } finally {
    await model[Symbol.asyncDispose]();
  }
}
