// What huge pages do to decode speed and load time: each round starts fresh processes, tessera with
// loadLlamaModel's hugePages on and off and the C++ greedy runner's llama-bench-like tg test with
// --huge-pages on and off (the same advice, native/src/huge-pages.h), in a new order each round, and
// prints each side's median tokens/s, on ÷ off per round, and tessera's load time. Run after
// `npm run build` (docs/native.md, "Huge pages"):
//   node benchmarks/huge-pages.mjs [--model llama-3.2-1b:q4_0] [--threads 1] [--rounds 6] [--tokens 33]
import { execFileSync } from "node:child_process";
import { median } from "../dist/bench/stats.js";
import { failArgument, parseBenchArguments, resolveBenchModel } from "./lib/bench-arguments.mjs";
import { runnerTgTokensPerSecond } from "./lib/greedy-runner-tg.mjs";

const values = parseBenchArguments("huge-pages", {
  model: { type: "string", default: "llama-3.2-1b:q4_0" },
  threads: { type: "string", default: "1" },
  rounds: { type: "string", default: "6" },
  tokens: { type: "string", default: "33" },
  child: { type: "string" },
});
const tokens = Number(values.tokens);
const threads = Number(values.threads);
const rounds = Number(values.rounds);
for (const [name, value, minimum] of [
  ["--threads", threads, 1],
  ["--rounds", rounds, 1],
  ["--tokens", tokens, 2],
]) {
  if (!Number.isInteger(value) || value < minimum) {
    failArgument("huge-pages", `${name} must be a whole number of at least ${minimum}`);
  }
}
const modelPath = await resolveBenchModel("huge-pages", values.model);
const text = "Once upon a time there was a river stone garden letter window morning";

if (values.child !== undefined) {
  // One tessera process: load (timed), one warm-up generation, then the median of three.
  const { loadLlamaModel } = await import("../dist/backends/llamacpp/llama-model.js");
  const started = performance.now();
  const model = await loadLlamaModel(modelPath, { hugePages: values.child === "on" });
  const loadMs = performance.now() - started;
  const context = await model.createContext({ contextSize: 512, threads, flashAttention: "off" });
  const prompt = model.tokenize(text);
  const rates = [];
  for (let run = 0; run < 4; run++) {
    const stream = context.generate(prompt, { maxTokens: tokens, temperature: 0, ignoreEos: true });
    for await (const _ of stream.batches()) {
      // read every batch
    }
    const result = await stream.result;
    if (run > 0) rates.push(((result.generatedTokens - 1) * 1000) / result.timings.decodeMs);
  }
  const advice = model.hugePages;
  context.dispose();
  await model[Symbol.asyncDispose]();
  console.log(JSON.stringify({ loadMs, tokensPerSecond: median(rates), advice }));
  process.exit(0);
}

const tessera = (mode) =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [new URL(import.meta.url).pathname, "--child", mode, ...process.argv.slice(2)],
      {
        encoding: "utf8",
      },
    ).trim(),
  );
const runner = (mode) => ({
  tokensPerSecond: runnerTgTokensPerSecond({
    modelPath,
    threads,
    tokens: tokens - 1,
    hugePages: mode === "on",
  }),
});

const sides = [
  ["tessera", "on", tessera],
  ["tessera", "off", tessera],
  ["runner", "on", runner],
  ["runner", "off", runner],
];
const results = new Map(sides.map(([name, mode]) => [`${name} ${mode}`, []]));
let advice;
for (let round = 0; round < rounds; round++) {
  // Rotate the order so no side always follows the same one.
  const order = sides.map((_, index) => sides[(index + round) % sides.length]);
  const line = [];
  for (const [name, mode, run] of order) {
    const result = run(mode);
    if (name === "tessera" && mode === "on") advice = result.advice;
    results.get(`${name} ${mode}`).push(result);
    line.push(`${name} ${mode} ${result.tokensPerSecond.toFixed(2)}`);
  }
  console.log(`round ${round + 1}: ${line.join(", ")} tokens/s`);
}
const rate = (key) => results.get(key).map((result) => result.tokensPerSecond);
for (const name of ["tessera", "runner"]) {
  const on = rate(`${name} on`);
  const off = rate(`${name} off`);
  const ratios = on.map((value, index) => value / off[index]);
  console.log(
    `${name}: on ${median(on).toFixed(2)}, off ${median(off).toFixed(2)} tokens/s; on ÷ off per round: median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`,
  );
}
const load = (mode) => median(results.get(`tessera ${mode}`).map((result) => result.loadMs));
console.log(
  `tessera load: on ${load("on").toFixed(0)} ms, off ${load("off").toFixed(0)} ms; advised ${(advice.advisedBytes / 2 ** 20).toFixed(0)} MiB, collapsed ${(advice.collapsedBytes / 2 ** 20).toFixed(0)} MiB (${values.model}, ${threads} thread(s))`,
);
