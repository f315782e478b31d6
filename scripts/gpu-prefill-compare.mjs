#!/usr/bin/env node
// CPU prefill speed of one addon build, to compare two builds run in turns (the prefillChunkSize change
// must leave the CPU path as it was). Usage, from the repository root after `npm run build:ts`:
//   TESSERA_NATIVE_ADDON=<path/to/tessera.node> node scripts/gpu-prefill-compare.mjs [runs=10]
// Prints one JSON line: the prefill tokens/s of each run, sorted, and their median.
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { resolveDefaultModel } from "../dist/gguf/default-model.js";

const runs = Number(process.argv[2] ?? 10);
const model = await loadLlamaModel(await resolveDefaultModel());
const context = await model.createContext({ contextSize: 2048, batchSize: 512, threads: 1 });
const prompt = model.tokenize("the quick brown fox jumps over the lazy dog ".repeat(150)).slice(0, 1536);
const rates = [];
for (let run = 0; run < runs; run++) {
  const result = await context
    .generate(prompt, { temperature: 0, maxTokens: 1, reusePrefix: false })
    .collect();
  rates.push(prompt.length / (result.timings.prefillMs / 1000));
}
rates.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    addon: process.env.TESSERA_NATIVE_ADDON ?? "default",
    promptTokens: prompt.length,
    prefillTokensPerSecond: rates.map((rate) => Math.round(rate)),
    median: Math.round(rates[Math.floor(rates.length / 2)]),
  }),
);
model.dispose();
