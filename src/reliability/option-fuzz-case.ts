// One case of the option fuzzer: loadLlamaModel, createContext and generate options drawn from the
// pools in option-fuzz-values.ts. A case is a pure function of (run seed, case number, vocabulary
// size), so the parent and the child build the same one and a crash is replayed from its number.
import {
  contextPools,
  drawGrammar,
  drawLogitBias,
  drawOption,
  generatePools,
  loadPools,
  type OptionPools,
} from "./option-fuzz-values.js";
import { caseSeed, SeededRandom } from "./seeded-random.js";

export interface OptionFuzzRequest {
  /** Token ids (or something that is not, to hit the prompt checks). */
  readonly prompt: unknown;
  readonly options: Record<string, unknown>;
}

export interface OptionFuzzCase {
  readonly index: number;
  /** undefined: the child's already loaded model with default options. */
  readonly load: Record<string, unknown> | undefined;
  readonly context: Record<string, unknown>;
  /** Started together, so several sequences decode in one batch. */
  readonly generations: readonly OptionFuzzRequest[];
}

function drawAll(
  random: SeededRandom,
  pools: Readonly<Record<string, OptionPools>>,
  outsideRate: number,
): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [name, pool] of Object.entries(pools)) {
    const value = drawOption(random, pool, outsideRate);
    if (value !== undefined) options[name] = value;
  }
  return options;
}

function drawPrompt(random: SeededRandom, vocabSize: number, outsideRate: number): unknown {
  const tokens = (length: number) => Array.from({ length }, () => random.integer(vocabSize));
  if (!random.chance(outsideRate)) {
    return random.chance(0.9) ? Int32Array.from(tokens(random.between(1, 24))) : tokens(random.between(1, 8));
  }
  return random.pick<unknown>([
    new Int32Array(0),
    Int32Array.of(vocabSize),
    Int32Array.of(-1),
    [0.5],
    Int32Array.from(tokens(9000)),
    "hello",
  ]);
}

function drawRequest(random: SeededRandom, vocabSize: number, outsideRate: number): OptionFuzzRequest {
  const options = drawAll(random, generatePools(vocabSize), outsideRate);
  const bias = drawLogitBias(random, vocabSize, outsideRate);
  if (bias !== undefined) options.logitBias = bias;
  if (random.chance(0.3)) {
    const grammar = drawGrammar(random, outsideRate);
    if (grammar !== undefined) options.grammar = grammar;
    if (random.chance(0.2)) options.grammarRoot = random.pick<unknown>(["root", "missing", 5]);
  }
  if (random.chance(0.05)) options.signal = AbortSignal.abort();
  if (random.chance(outsideRate / 4)) options.temprature = 1;
  return { prompt: drawPrompt(random, vocabSize, outsideRate), options };
}

export function buildOptionFuzzCase(runSeed: number, index: number, vocabSize: number): OptionFuzzCase {
  const random = new SeededRandom(caseSeed(runSeed, index));
  // Half the cases stay inside every range; the others break a rule or a few, each at its own rate.
  const outsideRate = random.pick([0, 0, 0, 0, 0.02, 0.04, 0.08, 0.3]);
  const load = random.chance(0.1) ? drawAll(random, loadPools(), outsideRate) : undefined;
  const context = drawAll(random, contextPools(), outsideRate);
  const generationCount = random.pick([1, 1, 1, 2, 3]);
  const generations = Array.from({ length: generationCount }, () =>
    drawRequest(random, vocabSize, outsideRate),
  );
  return { index, load, context, generations };
}

/** The case as one line, with the numbers JSON cannot show (NaN, -0, Infinity, subnormals) spelled out. */
export function describeOptionFuzzCase(fuzzCase: OptionFuzzCase): string {
  const parts = [
    ...(fuzzCase.load === undefined ? [] : [`load ${describeValue(fuzzCase.load)}`]),
    `context ${describeValue(fuzzCase.context)}`,
    ...fuzzCase.generations.map(
      (generation) => `generate(${describeValue(generation.prompt)}, ${describeValue(generation.options)})`,
    ),
  ];
  return parts.join("; ");
}

function describeValue(value: unknown): string {
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…(${value.length})` : value);
  if (value === null || typeof value !== "object") return String(value);
  if (value instanceof AbortSignal) return `AbortSignal(aborted: ${value.aborted})`;
  if (ArrayBuffer.isView(value) || Array.isArray(value)) {
    const items = Array.from(value as ArrayLike<unknown>);
    const shown = items.slice(0, 6).map(describeValue).join(", ");
    const name = Array.isArray(value) ? "" : value.constructor.name;
    return `${name}[${shown}${items.length > 6 ? `, …(${items.length})` : ""}]`;
  }
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  // Options are shown whole; only a logit bias over many tokens is cut.
  const shown = entries.slice(0, 30).map(([key, item]) => `${String(key)}: ${describeValue(item)}`);
  return `${value instanceof Map ? "Map" : ""}{${shown.join(", ")}${entries.length > 30 ? `, …(${entries.length})` : ""}}`;
}
