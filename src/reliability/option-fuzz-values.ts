// Value pools of the option fuzzer: for each option, values inside its documented range (edges
// included) and values just outside it, plus the exotic numbers every numeric option also gets (NaN,
// ±Infinity, negative zero, float64 and float32 subnormals, values that overflow float32 or int32).
import type { SeededRandom } from "./seeded-random.js";

export const exoticValues: readonly unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -0,
  5e-324,
  1e-40,
  -1e-300,
  1e300,
  3.5e38,
  2 ** 31,
  2 ** 32,
  -1,
  1.5,
  "1",
  null,
  true,
  {},
];

/** How an option is drawn: left out, inside its range, or outside it (or exotic). */
export interface OptionPools {
  readonly inside: readonly unknown[];
  readonly outside: readonly unknown[];
}

/**
 * undefined means "leave the option out" (30%). Otherwise a value outside the range (or, one time in
 * five, an exotic one) with probability `outsideRate`, else one inside. The case picks the rate, so most
 * cases break no rule or one and get past the checks into llama.cpp, where the assertions are.
 */
export function drawOption(random: SeededRandom, pools: OptionPools, outsideRate: number): unknown {
  if (random.chance(0.3)) return undefined;
  if (!random.chance(outsideRate)) return random.pick(pools.inside);
  if (pools.outside.length === 0 || random.chance(0.2)) return random.pick(exoticValues);
  return random.pick(pools.outside);
}

const flag: OptionPools = { inside: [true, false], outside: ["yes", 1, 0] };

export function loadPools(): Readonly<Record<string, OptionPools>> {
  return {
    gpuLayers: { inside: [0, 1, 2, 99, 65536, "max"], outside: [-1, 65537, 0.5, "all"] },
    useMmap: flag,
  };
}

/**
 * Threads inside the range stay at 1-2 on purpose: 512 is valid, but ggml spin-waits, and 512 threads
 * on a 2-core machine make one token take minutes, which the fuzzer would count as a hang.
 */
export function contextPools(): Readonly<Record<string, OptionPools>> {
  return {
    contextSize: {
      inside: [16, 17, 64, 255, 256, 257, 1000, 2048, 4096, 8192],
      // 2^24 itself is valid but its KV cache (tens of GB, cleared at creation) took longer than the
      // 30 s hang limit here: 2 "hangs" in 2000 cases that were only slow.
      outside: [15, 0, 2 ** 24 + 1],
    },
    batchSize: { inside: [1, 2, 3, 7, 64, 512, 513, 4096, 65536], outside: [0, 65537] },
    sequences: { inside: [1, 1, 2, 3, 4, 8, 16], outside: [0, 257, 256] },
    threads: { inside: [1, 1, 1, 2], outside: [0, 513] },
    unifiedKvCache: flag,
    // Last: the context options drawn before it stay what they were for a given seed.
    flashAttention: { inside: ["auto", "on", "off"], outside: ["yes", "ON", "", true, false, 1] },
  };
}

export function generatePools(vocabSize: number): Readonly<Record<string, OptionPools>> {
  const probability = { inside: [5e-324, 1e-40, 0.1, 0.5, 0.9, 1, 1 - 1e-16], outside: [0, 1.0000001, -0.5] };
  const penalty = { inside: [-1e6, -2, 0, -0, 5e-324, 0.5, 2, 1e6], outside: [1.000001e6, -1.000001e6] };
  return {
    temperature: {
      inside: [0, -0, 1e-40, 5e-324, 9.99e-4, 1e-3, 0.5, 1, 2, 100, 3.4e38],
      outside: [-1e-300, -1, 3.5e38, 1e300, "1"],
    },
    topK: { inside: [0, 1, 40, vocabSize - 1, vocabSize], outside: [-1, vocabSize + 1, 2 ** 31] },
    topP: probability,
    typicalP: probability,
    minP: { inside: [0, -0, 5e-324, 0.05, 0.5, 1], outside: [1.01, -1e-300] },
    repeatPenalty: { inside: [1e-6, 0.5, 1, 1.3, 1e6], outside: [0, 9e-7, 1.000001e6, -1] },
    frequencyPenalty: penalty,
    presencePenalty: penalty,
    penaltyLastN: { inside: [-1, 0, 1, 16, 64], outside: [-2, 4096, 2 ** 24, 2 ** 31] },
    seed: { inside: [0, 1, 12345, 4294967294], outside: [4294967295, 2 ** 32, -1] },
    maxTokens: { inside: [1, 2, 8, 64], outside: [0, -1, 100_000, 2 ** 53] },
    ignoreEos: flag,
    logits: { inside: [false, 1, 5, vocabSize, "full"], outside: [0, vocabSize + 1, "top", true] },
    rawLogits: { inside: [false, 1, 5, vocabSize, "full"], outside: [0, 2 ** 16 + 1, "raw"] },
    promptLogprobs: flag,
    queueCapacity: { inside: [1, 2, 32, 1000, 65536], outside: [0, 65537] },
    reusePrefix: flag,
  };
}

/** Logit biases: single tokens at the float32 edges, many tokens, every token banned, and bad keys. */
export function drawLogitBias(random: SeededRandom, vocabSize: number, outsideRate: number): unknown {
  const token = random.integer(vocabSize);
  // Built only when drawn: banning every token is a vocabulary-sized object.
  const inside: (() => unknown)[] = [
    () => ({ [token]: Number.NEGATIVE_INFINITY }),
    () => ({ [token]: 5 }),
    () => ({ [token]: 3.4e38 }),
    () => ({ [token]: -3.4e38 }),
    () => ({ [token]: -1e300 }),
    () => new Map([[token, 100]]),
    () =>
      Object.fromEntries(
        Array.from({ length: 100 }, () => [random.integer(vocabSize), random.next() * 20 - 10]),
      ),
    () => Object.fromEntries(Array.from({ length: vocabSize }, (_, id) => [id, Number.NEGATIVE_INFINITY])),
  ];
  const outside: (() => unknown)[] = [
    () => ({ [token]: Number.NaN }),
    () => ({ [token]: Number.POSITIVE_INFINITY }),
    () => ({ [token]: 1e39 }),
    () => ({ [vocabSize]: 1 }),
    () => ({ "-1": 1 }),
    () => ({ "1.5": 1 }),
    () => [1, 2],
    () => "bias",
  ];
  const drawn = drawOption(random, { inside, outside }, outsideRate);
  return typeof drawn === "function" ? (drawn as () => unknown)() : drawn;
}

/** Grammars that parse, fail to parse, and sit at or past the nesting and size limits. */
export function drawGrammar(random: SeededRandom, outsideRate: number): unknown {
  const nested = (depth: number) => `root ::= ${"(".repeat(depth)}"a"${")".repeat(depth)}`;
  const inside = [
    'root ::= "a"',
    "root ::= [a-z]+",
    'root ::= ("ab" | "c")* "."',
    'root ::= [^"]* "x"',
    nested(1000),
    'root ::= item+\nitem ::= "x" | "y"',
  ];
  const outside = [
    "",
    " ",
    "root ::= ",
    "root ::= missing-rule",
    'x ::= "a"',
    "root ::= [",
    nested(1001),
    nested(30_000),
    `root ::= "${"a".repeat(300_000)}"`,
    42,
  ];
  return drawOption(random, { inside, outside }, outsideRate);
}
