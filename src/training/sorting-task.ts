// The second built-in checkable task: sort a few digits, one problem a line, `3142=1234`. As for
// addition, every digit string is either held out (the evaluation set) or in the training corpus, never
// both: one seeded shuffle of all strings, cut in two, checked again by assertDisjoint.
import {
  type AdditionSplit,
  additionCorpus,
  assertDisjoint,
  seededRandom,
  shuffled,
} from "./addition-task.js";

export interface SortingTaskOptions {
  /** Digits per problem (with repeats): 4 gives 10,000 problems. */
  readonly digits: number;
  readonly heldOut: number;
  readonly seed: number;
}

export const defaultSortingTask: SortingTaskOptions = { digits: 4, heldOut: 400, seed: 7 };

/** All digit strings of the length, split once by the seed into training and held-out problems. */
export function sortingSplit(options: SortingTaskOptions = defaultSortingTask): AdditionSplit {
  const problems = Array.from({ length: 10 ** options.digits }, (_, value) => {
    const digits = String(value).padStart(options.digits, "0");
    // left/right keep the shape of an addition problem; they are the first and last digits here.
    return {
      left: Number(digits[0]),
      right: Number(digits.at(-1)),
      prompt: `${digits}=`,
      answer: [...digits].sort().join(""),
    };
  });
  const order = shuffled(problems, seededRandom(options.seed));
  const split = { heldOut: order.slice(0, options.heldOut), training: order.slice(options.heldOut) };
  assertDisjoint(split);
  return split;
}

/** The training text: shuffled passes over the training problems, one a line (as for addition). */
export const sortingCorpus = additionCorpus;
