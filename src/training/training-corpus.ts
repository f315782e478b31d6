// What a model trains on: a built-in checkable task or a text file. Either way the corpus becomes two
// token streams (training and validation) cut at line starts into rows for ggml-opt.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { additionCorpus, additionSplit, defaultAdditionTask } from "./addition-task.js";
import { TrainingError } from "./errors/training-error.js";
import { fortuneCollections, fortunesFolder, fortunesText, loadFortunes } from "./fortunes-corpus.js";
import { defaultSortingTask, sortingCorpus, sortingSplit } from "./sorting-task.js";

export type TrainingCorpus =
  | { readonly kind: "addition" }
  | { readonly kind: "sorting" }
  | { readonly kind: "fortunes"; readonly validationFraction: number }
  | { readonly kind: "text"; readonly path: string; readonly validationFraction: number };

export interface CorpusText {
  /** One string per training pass (built-in tasks shuffle each pass anew), or one for a text file. */
  readonly trainingPasses: readonly string[];
  readonly validation: string;
  /** For the training record. */
  readonly description: string;
  /** True when each pass is its own text (the native trainer then runs one epoch over all of them). */
  readonly passesInText: boolean;
  /** A text file's held-out lines (the validation), so an empty validation can say how long a corpus must be. */
  readonly heldOut?: { readonly lines: number; readonly totalLines: number; readonly fraction: number };
  /** A chat template that renders prompts the way the corpus reads (replaces the start's), if any. */
  readonly chatTemplate?: string;
}

/**
 * For a task model: the conversation becomes the raw task prompt (BOS, then the user messages' text),
 * so a chat-shaped caller (the strategy benchmark, the server) prompts it exactly as it was trained.
 */
export const rawPromptChatTemplate =
  "{{ bos_token }}{% for message in messages %}{% if message['role'] == 'user' %}{{ message['content'] }}{% endif %}{% endfor %}";

export async function loadCorpusText(
  corpus: TrainingCorpus,
  epochs: number,
  seed: number,
): Promise<CorpusText> {
  if (corpus.kind === "addition") {
    const split = additionSplit();
    const passes = Array.from({ length: epochs }, (_, pass) => additionCorpus(split, 1, seed + pass));
    const task = defaultAdditionTask;
    return {
      trainingPasses: passes,
      validation: `${split.heldOut.map((item) => `${item.prompt}${item.answer}`).join("\n")}\n`,
      description:
        `addition: a+b=c, operands 0-${task.maxOperand}, ${split.training.length} training problems shuffled anew each epoch, ` +
        `${split.heldOut.length} held out (split seed ${task.seed}) as validation`,
      passesInText: true,
      chatTemplate: rawPromptChatTemplate,
    };
  }
  if (corpus.kind === "sorting") {
    const split = sortingSplit();
    const passes = Array.from({ length: epochs }, (_, pass) => sortingCorpus(split, 1, seed + pass));
    const task = defaultSortingTask;
    return {
      trainingPasses: passes,
      validation: `${split.heldOut.map((item) => `${item.prompt}${item.answer}`).join("\n")}\n`,
      description:
        `sorting: ${task.digits} digits = the digits in ascending order, ${split.training.length} training problems shuffled anew each epoch, ` +
        `${split.heldOut.length} held out (split seed ${task.seed}) as validation`,
      passesInText: true,
      chatTemplate: rawPromptChatTemplate,
    };
  }
  if (corpus.kind === "fortunes") {
    // The split is fixed (seed 1) whatever the training seed, so every model is judged on the same text.
    const { training, validation, count } = fortunesText(await loadFortunes(), corpus.validationFraction, 1);
    return {
      trainingPasses: [training],
      validation,
      description:
        `Debian fortunes (${fortunesFolder}: ${fortuneCollections.join(", ")}), ${count} fortunes, ` +
        `${training.length} characters for training, the last ${(corpus.validationFraction * 100).toFixed(0)}% of fortunes (${validation.length} characters) held out`,
      passesInText: false,
    };
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(corpus.path);
  } catch (error) {
    throw new TrainingError(`cannot read the corpus ${corpus.path}: ${(error as Error).message}`, {
      option: "corpus",
      cause: error,
    });
  }
  let text: string;
  try {
    // Fatal: a lenient decode would train on U+FFFD where the file has other bytes, unseen.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new TrainingError(
      `the corpus ${corpus.path} is not UTF-8 text: convert it first (for example with iconv -f latin1 -t utf-8)`,
      { option: "corpus", cause: error },
    );
  }
  const lines = text.split("\n");
  const validationLines = Math.max(1, Math.floor(lines.length * corpus.validationFraction));
  if (lines.length < 2 * validationLines) {
    throw new TrainingError(
      `the corpus ${corpus.path} has ${lines.length} lines, too few for a validation split`,
      {
        option: "corpus",
      },
    );
  }
  const sha256 = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  return {
    trainingPasses: [`${lines.slice(0, -validationLines).join("\n")}\n`],
    validation: `${lines.slice(-validationLines).join("\n")}\n`,
    description: `text file ${corpus.path.split("/").pop()} (sha256 ${sha256}…, ${text.length} characters), last ${validationLines} lines held out`,
    heldOut: { lines: validationLines, totalLines: lines.length, fraction: corpus.validationFraction },
    passesInText: false,
  };
}

/**
 * The evaluation task a training record's corpus description belongs to: its first words, as the
 * descriptions above write them ("addition: …", "sorting: …", "Debian fortunes …", "text file …").
 * Undefined for a description from elsewhere.
 */
export function taskOfCorpusDescription(description: string): "addition" | "sorting" | "text" | undefined {
  if (description.startsWith("addition:")) return "addition";
  if (description.startsWith("sorting:")) return "sorting";
  if (description.startsWith("Debian fortunes") || description.startsWith("text file ")) return "text";
  return undefined;
}
