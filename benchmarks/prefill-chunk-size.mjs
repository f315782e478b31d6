// Prefill time of one prompt by the context's prefillChunkSize (the most prompt tokens one decode step
// takes), in one process: one context per size on the same model, 1 thread, flash attention off, one
// sequence, taking turns in a new random order each round on a new prompt (no reuse). Prints the median
// native prefill time of each size. Run after `npm run build`:
//   node benchmarks/prefill-chunk-size.mjs [--model tiny] [--prompt-tokens 1024] [--sizes 128,256,512] [--rounds 25] [--skip 3]
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { median } from "../dist/bench/stats.js";
import { failArgument, parseBenchArguments, resolveBenchModel } from "./lib/bench-arguments.mjs";

const fail = (message) => failArgument("prefill-chunk-size", message);
const values = parseBenchArguments("prefill-chunk-size", {
  model: { type: "string", default: "tiny" },
  "prompt-tokens": { type: "string", default: "1024" },
  sizes: { type: "string", default: "128,256,512" },
  rounds: { type: "string", default: "25" },
  skip: { type: "string", default: "3" },
});
for (const name of ["prompt-tokens", "rounds", "skip"]) {
  if (!/^\d+$/.test(values[name])) fail(`--${name} must be a whole number, got ${values[name]}`);
}
const sizes = values.sizes.split(",").map(Number);
if (sizes.some((size) => !Number.isInteger(size) || size < 1 || size > 512))
  fail(`--sizes must be whole numbers from 1 to 512, got ${values.sizes}`);
const promptTokens = Number(values["prompt-tokens"]);
const rounds = Number(values.rounds);
const skip = Number(values.skip);
if (rounds <= skip) fail(`--rounds (${rounds}) must be more than --skip (${skip})`);

const model = await loadLlamaModel(await resolveBenchModel("prefill-chunk-size", values.model));
const contexts = new Map();
for (const size of sizes) {
  contexts.set(
    size,
    await model.createContext({
      contextSize: promptTokens + 256,
      threads: 1,
      sequences: 1,
      flashAttention: "off",
      prefillChunkSize: size,
    }),
  );
}
const words =
  "river stone garden letter window morning silver market candle harbor meadow lantern journey".split(" ");
const times = new Map(sizes.map((size) => [size, []]));
try {
  for (let round = 0; round < rounds; round++) {
    const text = `${round} ${Array.from({ length: promptTokens + 64 }, (_, i) => words[(i * 7 + round) % words.length]).join(" ")}`;
    const prompt = model.tokenize(text).subarray(0, promptTokens);
    if (prompt.length < promptTokens) throw new Error(`the prompt has only ${prompt.length} tokens`);
    for (const size of [...sizes].sort(() => Math.random() - 0.5)) {
      const result = await contexts
        .get(size)
        .generate(prompt, { maxTokens: 1, temperature: 0, reusePrefix: false })
        .collect();
      if (round >= skip) times.get(size).push(result.timings.prefillMs);
    }
  }
} finally {
  for (const context of contexts.values()) context.dispose();
  model.dispose();
}
console.log(
  `prefill of ${promptTokens} tokens, median of ${rounds - skip} rounds (model ${values.model}, 1 thread, flash attention off)`,
);
for (const size of sizes) console.log(`prefillChunkSize ${size}\t${fixed(median(times.get(size)), 2)} ms`);

/** A median of no finite values (every round failed to time) is null: printed as n/a. */
function fixed(value, digits) {
  return value === null ? "n/a" : value.toFixed(digits);
}
