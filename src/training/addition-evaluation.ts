// Exact-match accuracy of a model on held-out addition problems, prompted as it was trained (BOS, then
// `a+b=`), answers read up to the newline. Problems run 8 sequences at a time in one context, so they
// decode in one batch per step.
//
// With `samples` > 1 each problem is sampled that many times, and three figures come from the same draws:
// one sample (the first draw), a majority vote (the most frequent answer line, ties to the earliest, no
// checking: the vote never sees the expected answer) and rejection sampling with a checking validator
// (draws in order until one is correct; it succeeds within the budget when any draw is correct).
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { type AdditionProblem, isCorrectAddition } from "./addition-task.js";

export interface AdditionEvaluationOptions {
  /** 0 = greedy. */
  readonly temperature: number;
  readonly seed?: number;
  readonly threads?: number;
  /** Draws per problem (default 1); greedy draws are all the same, so use 1 with temperature 0. */
  readonly samples?: number;
}

export interface AdditionEvaluation {
  /** Problems whose first draw is correct. */
  readonly correct: number;
  readonly total: number;
  /** correct / total: single-sample exact match. */
  readonly accuracy: number;
  /** Share of problems whose majority answer over all draws is correct. */
  readonly majorityAccuracy: number;
  /** Share of problems with a correct draw among all draws (rejection sampling with a checker). */
  readonly rejectionAccuracy: number;
  /** The first few completions, for a human to look at. */
  readonly examples: readonly string[];
}

const parallel = 8;

/** The answer line a completion votes with. */
function answerLine(completion: string): string {
  return completion.split("\n", 1)[0]!.trim();
}

/** The most frequent answer, ties to the one drawn first. */
export function majorityAnswer(answers: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers) counts.set(answer, (counts.get(answer) ?? 0) + 1);
  let best = answers[0] ?? "";
  for (const answer of answers) if (counts.get(answer)! > counts.get(best)!) best = answer;
  return best;
}

export async function evaluateAddition(
  modelPath: string,
  problems: readonly AdditionProblem[],
  options: AdditionEvaluationOptions,
): Promise<AdditionEvaluation> {
  const samples = Math.max(1, options.samples ?? 1);
  const model = await loadLlamaModel(modelPath);
  try {
    const context = await model.createContext({
      contextSize: 64,
      sequences: parallel,
      threads: options.threads ?? 1,
    });
    try {
      const draws = problems.flatMap((item, problem) =>
        Array.from({ length: samples }, (_, sample) => ({ item, problem, sample })),
      );
      const answers: string[][] = problems.map(() => []);
      for (let first = 0; first < draws.length; first += parallel) {
        const batch = draws.slice(first, first + parallel);
        const completions = await Promise.all(
          batch.map(async ({ item, problem, sample }) => {
            const stream = context.generate(model.tokenize(item.prompt), {
              temperature: options.temperature,
              // The first draw of problem p uses seed + p whatever `samples` is, so the single-sample
              // figure of a majority run equals that of a one-sample run.
              seed: (options.seed ?? 1) + problem + sample * 100_003,
              maxTokens: item.answer.length + 1,
            });
            return (await stream.collect()).text;
          }),
        );
        completions.forEach((completion, index) => {
          const { problem } = batch[index]!;
          answers[problem]!.push(answerLine(completion));
        });
      }
      let correct = 0;
      let majority = 0;
      let rejection = 0;
      problems.forEach((item, problem) => {
        const drawn = answers[problem]!;
        if (isCorrectAddition(item, drawn[0]!)) correct++;
        if (isCorrectAddition(item, majorityAnswer(drawn))) majority++;
        if (drawn.some((answer) => isCorrectAddition(item, answer))) rejection++;
      });
      const total = Math.max(1, problems.length);
      return {
        correct,
        total: problems.length,
        accuracy: correct / total,
        majorityAccuracy: majority / total,
        rejectionAccuracy: rejection / total,
        examples: problems.slice(0, 6).map((item, problem) => `${item.prompt}${answers[problem]![0]}`),
      };
    } finally {
      context.dispose();
    }
  } finally {
    await model[Symbol.asyncDispose]();
  }
}
