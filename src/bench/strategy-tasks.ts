// Default tasks of `tessera bench strategies`: a prompt and a verifier in code each. On the tiny
// random-weight model the text is noise, so the verifiers test properties noise sometimes has; what is
// measured is how often each strategy finds a passing sample and what that costs. On a real model the same
// tasks are ordinary instructions. A model trained on a checkable task gets checkableStrategyTasks instead. A task file (`--tasks file.mjs`) exports `tasks` of the same shape.

import { additionSplit, isCorrectAddition } from "../training/addition-task.js";
import { sortingSplit } from "../training/sorting-task.js";

export interface StrategyTask {
  id: string;
  prompt: string;
  requirement: string;
  verify: (text: string) => boolean;
  /**
   * The prompt is in the model's own trained format (a task model such as tiny-arith reads `07+45=`):
   * the requirement is checked but never shown, so the rendered instruction is exactly the prompt.
   */
  raw?: boolean;
  /** Where a sample ends (a task model's answer ends at its line's newline). */
  stopSequences?: string[];
}

export const defaultStrategyTasks: StrategyTask[] = [
  {
    id: "has-digit",
    prompt: "Write a sentence that contains a number written with digits.",
    requirement: "The answer contains at least one digit.",
    verify: (text) => /\d/.test(text),
  },
  {
    id: "starts-uppercase",
    prompt: "Write one sentence about the sea, starting with a capital letter.",
    requirement: "The answer starts with an upper-case letter.",
    verify: (text) => /^\s*\p{Lu}/u.test(text),
  },
  {
    id: "ascii-only",
    prompt: "Answer in plain English without any special characters: what is rain?",
    requirement: "The answer uses ASCII characters only.",
    verify: (text) => text.trim().length > 0 && /^[\x20-\x7e\n]*$/.test(text),
  },
  {
    id: "mentions-the",
    prompt: "Describe a city in one sentence.",
    requirement: 'The answer contains the word "the".',
    verify: (text) => /\bthe\b/i.test(text),
  },
  {
    id: "short-words",
    prompt: "Write a few short words.",
    requirement: "Every word of the answer has at most six letters.",
    verify: (text) => {
      const words = text.match(/\p{L}+/gu) ?? [];
      return words.length > 0 && words.every((word) => word.length <= 6);
    },
  },
];

/** The built-in checkable tasks a model can be trained on (`tessera models train --corpus …`). */
export type CheckableTask = "addition" | "sorting";

/**
 * The default tasks for a model trained on a checkable task (tiny-arith): held-out problems, never in
 * its training corpus, in the format it was trained on, checked by the exact answer.
 */
export function checkableStrategyTasks(task: CheckableTask, count = 20): StrategyTask[] {
  const split = task === "addition" ? additionSplit() : sortingSplit();
  return split.heldOut.slice(0, count).map((item) => ({
    id: `${task}-${item.prompt.replace(/[+=]/g, (sign) => (sign === "+" ? "-plus-" : ""))}`,
    prompt: item.prompt,
    requirement: `The answer is ${item.answer}.`,
    verify: (text: string) => isCorrectAddition(item, text),
    raw: true,
    stopSequences: ["\n"],
  }));
}

/** Checks a loaded task file's export, naming the first bad entry. */
export function checkStrategyTasks(value: unknown, source: string): StrategyTask[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new TypeError(`${source} must export a non-empty array named tasks.`);
  }
  value.forEach((task: Partial<StrategyTask>, index) => {
    if (
      typeof task?.prompt !== "string" ||
      typeof task.requirement !== "string" ||
      typeof task.verify !== "function"
    ) {
      throw new TypeError(
        `${source}: tasks[${index}] needs a string prompt, a string requirement and a verify(text) function.`,
      );
    }
  });
  return value.map((task: StrategyTask, index) => ({
    ...task,
    id: typeof task.id === "string" ? task.id : `task-${index + 1}`,
  }));
}
