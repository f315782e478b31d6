// The built-in checkable task: two-operand addition, one problem a line, `a+b=c`. Every pair (a, b) of
// the operand range is either held out (the evaluation set) or in the training corpus, never both:
// the split is one seeded shuffle of all pairs, cut in two, so disjointness holds by construction and
// `assertDisjoint` checks it again on the strings themselves.

export interface AdditionProblem {
  readonly left: number;
  readonly right: number;
  /** `left+right=`, what the model is prompted with. */
  readonly prompt: string;
  /** The expected completion, without the newline. */
  readonly answer: string;
}

export interface AdditionTaskOptions {
  /** Largest operand (inclusive); 99 gives 2-digit addition. */
  readonly maxOperand: number;
  /**
   * "padded": operands and answer zero-padded to a fixed width (`07+45=052`), so every digit sits at
   * the same distance from the `=` in every line; "plain": `7+45=52`; "reversed": padded operands and
   * the padded answer written least significant digit first (`07+45=250` for 52), so each answer digit
   * depends on two operand digits and a carry the model has already written, not on digits to come.
   */
  readonly format: "plain" | "padded" | "reversed";
  /** Problems held out for evaluation. */
  readonly heldOut: number;
  readonly seed: number;
}

export const defaultAdditionTask: AdditionTaskOptions = {
  maxOperand: 99,
  format: "reversed",
  heldOut: 400,
  seed: 7,
};

/** mulberry32: a small seeded generator whose sequence is the same on every platform. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

function problem(left: number, right: number, options: AdditionTaskOptions): AdditionProblem {
  if (options.format === "plain")
    return { left, right, prompt: `${left}+${right}=`, answer: String(left + right) };
  const width = String(options.maxOperand).length;
  const pad = (value: number, digits: number): string => String(value).padStart(digits, "0");
  const sum = pad(left + right, String(2 * options.maxOperand).length);
  return {
    left,
    right,
    prompt: `${pad(left, width)}+${pad(right, width)}=`,
    answer: options.format === "reversed" ? [...sum].reverse().join("") : sum,
  };
}

export interface AdditionSplit {
  readonly training: readonly AdditionProblem[];
  readonly heldOut: readonly AdditionProblem[];
}

/** All pairs of the operand range, split once by the seed into training and held-out problems. */
export function additionSplit(options: AdditionTaskOptions = defaultAdditionTask): AdditionSplit {
  const pairs: AdditionProblem[] = [];
  for (let left = 0; left <= options.maxOperand; left++) {
    for (let right = 0; right <= options.maxOperand; right++) pairs.push(problem(left, right, options));
  }
  const order = shuffled(pairs, seededRandom(options.seed));
  const split = { heldOut: order.slice(0, options.heldOut), training: order.slice(options.heldOut) };
  assertDisjoint(split);
  return split;
}

/** Throws if any held-out prompt occurs among the training prompts. */
export function assertDisjoint(split: AdditionSplit): void {
  const training = new Set(split.training.map((item) => item.prompt));
  const leaked = split.heldOut.filter((item) => training.has(item.prompt));
  if (leaked.length > 0) {
    throw new Error(
      `${leaked.length} held-out problems are in the training corpus, e.g. ${leaked[0]!.prompt}`,
    );
  }
}

/** The training text: `passes` shuffled passes over the training problems, one a line. */
export function additionCorpus(split: AdditionSplit, passes: number, seed: number): string {
  const random = seededRandom(seed ^ 0x5eed);
  const lines: string[] = [];
  for (let pass = 0; pass < passes; pass++) {
    for (const item of shuffled(split.training, random)) lines.push(`${item.prompt}${item.answer}`);
  }
  return `${lines.join("\n")}\n`;
}

/** True when `completion` (what the model wrote after the prompt) starts with the exact answer line. */
export function isCorrectAddition(item: AdditionProblem, completion: string): boolean {
  const line = completion.split("\n", 1)[0]!.trim();
  return line === item.answer;
}
