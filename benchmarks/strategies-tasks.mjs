// Tasks for benchmarks/strategies-bench.mjs: a prompt and a verifier in code for each. On the tiny
// random-weight model the text is noise, so these verifiers test properties that noise sometimes has; what
// the benchmark measures is how often each strategy finds a passing sample and what that costs. On a real
// model (--model) the same tasks are ordinary instructions.

/** @typedef {{ id: string, prompt: string, requirement: string, verify: (text: string) => boolean }} StrategyTask */

/** @type {StrategyTask[]} */
export const tasks = [
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
