#!/usr/bin/env node
// Tokens/s and time to first token of tessera's native addon against node-llama-cpp's evaluate(), in one
// process, on the same model file, threads and prompt. Run `npm run build` first.
//
//   node benchmarks/native-throughput.mjs [--runs 5] [--tokens 128] [--big] [--json out.json]
//
// --big adds the Llama-3.2-1B-shaped Q4_0 model with 2 threads (generated on first use: minutes).
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { getLlama } from "node-llama-cpp";
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { median } from "../dist/bench/stats.js";
import { resolveDefaultModel, resolveModel } from "../dist/gguf/default-model.js";

const { values: flags } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    tokens: { type: "string", default: "128" },
    big: { type: "boolean", default: false },
    json: { type: "string" },
  },
});
const defaultRuns = Number(flags.runs);
const defaultTokens = Number(flags.tokens);
const promptText =
  "You are a helpful assistant. Answer briefly and precisely. Question: what is the capital of France, and why?";

/** One generation of ours: TTFT, decode tokens/s (after the first token), total time. */
async function runOurs(context, prompt, options, tokens) {
  const started = performance.now();
  let first = 0;
  let count = 0;
  for await (const batch of context
    .generate(prompt, { temperature: 0, maxTokens: tokens, ignoreEos: true, reusePrefix: false, ...options })
    .batches()) {
    if (count === 0) first = performance.now();
    count += batch.events.length;
  }
  const ended = performance.now();
  return {
    ttftMs: first - started,
    tokensPerSecond: ((count - 1) * 1000) / (ended - first),
    totalMs: ended - started,
  };
}

async function runTheirs(sequence, prompt, metadata, tokens) {
  await sequence.clearHistory();
  const started = performance.now();
  let first = 0;
  let count = 0;
  const iterator = metadata
    ? sequence.evaluateWithMetadata([...prompt], metadata, { temperature: 0 })
    : sequence.evaluate([...prompt], { temperature: 0 });
  for await (const _ of iterator) {
    if (count === 0) first = performance.now();
    if (++count >= tokens) break;
  }
  const ended = performance.now();
  return {
    ttftMs: first - started,
    tokensPerSecond: ((count - 1) * 1000) / (ended - first),
    totalMs: ended - started,
  };
}

function summarize(samples) {
  return {
    ttftMs: median(samples.map((sample) => sample.ttftMs)),
    tokensPerSecond: median(samples.map((sample) => sample.tokensPerSecond)),
    totalMs: median(samples.map((sample) => sample.totalMs)),
  };
}

async function benchmarkModel(label, path, threads, llama, runs, generatedTokens) {
  const model = await loadLlamaModel(path);
  const context = await model.createContext({ contextSize: 1024, threads });
  const prompt = model.tokenize(promptText);
  const theirModel = await llama.loadModel({ modelPath: path });
  const theirContext = await theirModel.createContext({ contextSize: 1024, threads });
  const sequence = theirContext.getSequence();

  const modes = {
    "ours, logits off": (tokens) => runOurs(context, prompt, {}, tokens),
    "ours, top-20 raw+processed": (tokens) => runOurs(context, prompt, { rawLogits: 20, logits: 20 }, tokens),
    "ours, full raw": (tokens) => runOurs(context, prompt, { rawLogits: "full" }, tokens),
    "node-llama-cpp evaluate()": (tokens) => runTheirs(sequence, prompt, undefined, tokens),
  };
  const samples = Object.fromEntries(Object.keys(modes).map((name) => [name, []]));
  for (const run of Object.values(modes)) await run(8); // warm-up
  for (let round = 0; round < runs; round++) {
    for (const [name, run] of Object.entries(modes)) samples[name].push(await run(generatedTokens));
  }
  // node-llama-cpp's probabilities (a boxed Map per token) are far slower: fewer tokens.
  const probabilityTokens = Math.min(16, generatedTokens);
  const theirProbabilities = [];
  for (let round = 0; round < Math.min(runs, 3); round++) {
    theirProbabilities.push(await runTheirs(sequence, prompt, { probabilities: true }, probabilityTokens));
  }

  // Best-of-8: eight seeded samples in one batch of one context (the first prefills the prompt, the
  // others copy its cells), against eight one after another. Each round starts from a prompt no
  // sequence has cached, so prefix reuse across rounds does not flatter either side.
  const parallel = await model.createContext({ contextSize: 512, sequences: 8, threads });
  const sampleOptions = { temperature: 0.8, maxTokens: Math.min(64, generatedTokens), ignoreEos: true };
  const sampleOf = (text) => model.tokenize(text);
  const oneSample = async (tokens, seed) => parallel.generate(tokens, { ...sampleOptions, seed }).collect();
  const sequentialTimes = [];
  const batchedTimes = [];
  const singleTimes = [];
  await oneSample(sampleOf(`Warm-up. ${promptText}`), 0);
  for (let round = 0; round < Math.min(3, runs); round++) {
    let started = performance.now();
    await oneSample(sampleOf(`Single ${round}. ${promptText}`), 1);
    singleTimes.push(performance.now() - started);
    const sequentialPrompt = sampleOf(`Sequential ${round}. ${promptText}`);
    started = performance.now();
    for (let seed = 1; seed <= 8; seed++) await oneSample(sequentialPrompt, seed);
    sequentialTimes.push(performance.now() - started);
    const batchedPrompt = sampleOf(`Batched ${round}. ${promptText}`);
    started = performance.now();
    await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => oneSample(batchedPrompt, seed)));
    batchedTimes.push(performance.now() - started);
  }

  const summary = Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summarize(list)]));
  summary["node-llama-cpp probabilities"] = summarize(theirProbabilities);
  const off = summary["ours, logits off"];
  const full = summary["ours, full raw"];
  const result = {
    label,
    path,
    threads,
    vocabSize: model.vocabSize,
    promptTokens: prompt.length,
    generatedTokens,
    runs,
    modes: summary,
    ratios: {
      oursOffVsNodeLlamaCpp: off.tokensPerSecond / summary["node-llama-cpp evaluate()"].tokensPerSecond,
      top20VsOff: summary["ours, top-20 raw+processed"].tokensPerSecond / off.tokensPerSecond,
      fullVsOff: full.tokensPerSecond / off.tokensPerSecond,
    },
    fullCaptureCostMsPerToken: 1000 / full.tokensPerSecond - 1000 / off.tokensPerSecond,
    bestOf8: {
      singleSampleMs: median(singleTimes),
      sequentialMs: median(sequentialTimes),
      batchedMs: median(batchedTimes),
      batchedOverSingle: median(batchedTimes) / median(singleTimes),
      sequentialOverBatched: median(sequentialTimes) / median(batchedTimes),
    },
  };
  parallel.dispose();
  context.dispose();
  model.dispose();
  await theirContext.dispose();
  await theirModel.dispose();
  return result;
}

function print(result) {
  console.log(
    `\n## ${result.label} (${result.vocabSize} vocab, ${result.threads} thread(s), ${result.promptTokens}-token prompt, ${result.generatedTokens} tokens, median of ${result.runs})`,
  );
  console.log("| mode | tokens/s | TTFT ms |");
  console.log("|---|---:|---:|");
  for (const [name, mode] of Object.entries(result.modes)) {
    console.log(`| ${name} | ${mode.tokensPerSecond.toFixed(0)} | ${mode.ttftMs.toFixed(2)} |`);
  }
  const { ratios, bestOf8 } = result;
  console.log(
    `ours/node-llama-cpp ${ratios.oursOffVsNodeLlamaCpp.toFixed(2)}x; top-20 vs off ${ratios.top20VsOff.toFixed(3)}; ` +
      `full raw costs ${result.fullCaptureCostMsPerToken.toFixed(4)} ms/token`,
  );
  console.log(
    `best-of-8 (${Math.min(64, result.generatedTokens)} tokens): one sample ${bestOf8.singleSampleMs.toFixed(0)} ms, 8 sequential ${bestOf8.sequentialMs.toFixed(0)} ms, ` +
      `8 in one batch ${bestOf8.batchedMs.toFixed(0)} ms = ${bestOf8.batchedOverSingle.toFixed(2)}x one sample`,
  );
}

const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const results = [
  await benchmarkModel("tiny F32", await resolveDefaultModel(), 1, llama, defaultRuns, defaultTokens),
];
print(results[0]);
if (flags.big) {
  const big = await resolveModel("llama-3.2-1b:q4_0");
  // About 30 tokens/s here: fewer runs and tokens keep this to a few minutes.
  results.push(
    await benchmarkModel(
      "Llama-3.2-1B-shaped Q4_0",
      big,
      2,
      llama,
      Math.min(defaultRuns, 3),
      Math.min(defaultTokens, 48),
    ),
  );
  print(results[1]);
}
await llama.dispose();
if (flags.json)
  writeFileSync(flags.json, `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`);
