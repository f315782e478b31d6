// Prefill of a prompt that continues a reused prefix (a few cells kept from the sequence's last prompt)
// against the same prompt prefilled with `reusePrefix: false`, on one context, interleaved; with
// --runner also against the C++ greedy runner (benchmarks/greedy-runner/, which clears its cache between
// requests) on the same text. Prints the median native prefill per variant. Run after `npm run build`:
//   node benchmarks/prefill-alignment.mjs [--tokens 640] [--rounds 20] [--runner]
import { parseArgs } from "node:util";
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { GreedyRunnerProcess } from "../dist/bench/greedy-runner-process.js";
import { buildUniquePrompt } from "../dist/bench/unique-prompts.js";
import { resolveModel } from "../dist/gguf/default-model.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    tokens: { type: "string", default: "640" },
    rounds: { type: "string", default: "20" },
    runner: { type: "boolean", default: false },
  },
});
const tokens = Number(values.tokens);
const rounds = Number(values.rounds);
const modelPath = await resolveModel(values.model);
const contextSize = Math.ceil((tokens + 64) / 256) * 256;
const model = await loadLlamaModel(modelPath);
const context = await model.createContext({ contextSize, threads: 1, sequences: 1, flashAttention: "off" });
const runner = values.runner
  ? await GreedyRunnerProcess.start({
      modelPath,
      threads: 1,
      contextSize,
      chat: false,
      flashAttention: "off",
    })
  : undefined;
const count = async (text) => model.tokenize(text).length;
const samples = { "prefix kept": [], "reusePrefix: false": [], "greedy runner": [] };
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function prefill(text, reusePrefix) {
  const stream = context.generate(model.tokenize(text), { maxTokens: 1, temperature: 0, reusePrefix });
  for await (const _ of stream.batches()) {
    // one token
  }
  const result = await stream.result;
  return { ms: result.timings.prefillMs, chunks: result.prefillChunks };
}

let lastChunks = {};
for (let round = -1; round < rounds; round++) {
  const kept = await prefill((await buildUniquePrompt(tokens, 3 * round + 3000, count)).text, true);
  const cold = await prefill((await buildUniquePrompt(tokens, 3 * round + 3001, count)).text, false);
  let runnerMs;
  if (runner !== undefined) {
    const report = await runner.generate((await buildUniquePrompt(tokens, 3 * round + 3002, count)).text, 1);
    runnerMs = report.firstTokenMs - report.tokenizeMs - report.templateMs;
  }
  if (round < 0) continue; // warm-up
  samples["prefix kept"].push(kept.ms);
  samples["reusePrefix: false"].push(cold.ms);
  if (runnerMs !== undefined) samples["greedy runner"].push(runnerMs);
  lastChunks = { "prefix kept": kept.chunks, "reusePrefix: false": cold.chunks };
}
console.log(`${tokens}-token prompts, ${rounds} rounds, ${modelPath}, 1 thread, flash attention off`);
for (const [name, values] of Object.entries(samples)) {
  if (values.length === 0) continue;
  const chunks = lastChunks[name] ? `, chunks ${JSON.stringify(lastChunks[name])}` : "";
  console.log(`${name}: median prefill ${median(values).toFixed(2)} ms${chunks}`);
}
runner?.close();
context.dispose();
await model[Symbol.asyncDispose]();
