#!/usr/bin/env node
// The per-token cost of the native sampling step (issue 14), on the raw addon: decode tokens/s of this
// build against another build (the commit before a change), side by side. tiny F32 model, 1 thread, one
// sequence, 128 generated tokens after a 24-token prompt.
//
//   node benchmarks/native-token-cost.mjs --before /path/to/old/native/build/Release/tessera.node [--rounds 15]
//     [--configurations greedy,greedy-logprobs,greedy-top20,chain] [--context '{"flashAttention":"off"}']
//     [--before-context '{"flashAttention":"auto"}'] [--prompt-tokens 24] [--second-turn]
//
// --before-context gives the "before" variant its own context options (default: --context), so one build
// can be compared with itself under two settings (--before native/build/Release/tessera.node). With
// --prompt-tokens the prompt is that long (decode then runs at that depth); --second-turn measures a
// second chat turn instead: the first turn's prompt and answer plus 16 new tokens, the history's cells
// reused, so its first token is the prefill of those 16 tokens at depth.
//
// Configurations: "greedy" is what the llama.cpp backend sends for greedy text without logits
// (tokenLogprobs: false; an older build ignores the option and computes the logprob anyway);
// "greedy-logprobs" keeps each event's logprob (the low-level API's default); "greedy-top20" captures
// raw and processed top-20, "greedy-full" raw and processed full vectors; "chain" samples through llama.cpp's candidate array (temperature 0.8,
// top-k 40, top-p 0.95, min-p 0.05). Each round runs every variant once in a fresh child process, in an
// order that alternates between rounds, so a noisy minute on a shared machine hits all alike; a figure is
// the median over rounds, a ratio the median of the per-round ratios with its spread (min–max).
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadRawAddon, median, runPairedRounds } from "./lib/paired-addon-rounds.mjs";

const { values: flags } = parseArgs({
  options: {
    before: { type: "string" },
    after: { type: "string", default: "native/build/Release/tessera.node" },
    configurations: { type: "string", default: "greedy,greedy-logprobs,greedy-top20,chain" },
    context: { type: "string", default: "{}" },
    "before-context": { type: "string" },
    "prompt-tokens": { type: "string", default: "24" },
    "second-turn": { type: "boolean", default: false },
    rounds: { type: "string", default: "15" },
    runs: { type: "string", default: "5" },
    tokens: { type: "string", default: "128" },
    model: { type: "string", default: "models/tiny-f32.gguf" },
    child: { type: "string" },
  },
});

const configurations = {
  greedy: { greedy: true, tokenLogprobs: false },
  "greedy-logprobs": { greedy: true },
  "greedy-top20": { greedy: true, rawTopK: 20, processedTopK: 20 },
  "greedy-full": { greedy: true, rawFull: true, processedFull: true },
  chain: { greedy: false, temperature: 0.8, topK: 40, topP: 0.95, minP: 0.05 },
};

async function child(spec) {
  const { addonPath, configuration, contextOptions } = JSON.parse(spec);
  const promptTokens = Number(flags["prompt-tokens"]);
  const addon = loadRawAddon(addonPath);
  const model = await addon.loadModel(resolve(flags.model), { gpuLayers: 0, useMmap: true }).promise;
  const context = await model.createContext({
    contextSize: promptTokens + 2 * Number(flags.tokens) + 64 <= 512 ? 512 : 2048,
    batchSize: 512,
    sequences: 1,
    threads: 1,
    batchThreads: 1,
    unifiedKvCache: false,
    ...contextOptions,
  });
  const tokens = Number(flags.tokens);
  const rates = [];
  const firsts = [];
  const decode = async (prompt, run, reusePrefix) => {
    const started = performance.now();
    const job = context.generate({
      tokens: prompt,
      seed: 7 + run,
      ...configurations[configuration],
      maxTokens: tokens,
      ignoreEos: true,
      promptLogprobs: false,
      reusePrefix,
      queueCapacity: 32,
    });
    let first = 0;
    const generated = [];
    for (;;) {
      const batch = await job.pull(32);
      if (generated.length === 0 && batch.count > 0) first = performance.now();
      generated.push(...batch.tokens);
      if (batch.done) break;
    }
    const ended = performance.now();
    return {
      generated,
      rate: (generated.length - 1) / ((ended - first) / 1000),
      firstTokenMs: first - started,
    };
  };
  for (let run = 0; run <= Number(flags.runs); run++) {
    const prompt = Int32Array.from(
      { length: promptTokens },
      (_, index) => 100 + ((index * 37 + run * 11) % 5000),
    );
    let measured = await decode(prompt, run, false);
    if (flags["second-turn"]) {
      const next = Int32Array.from({ length: 16 }, (_, index) => 200 + ((index * 13 + run) % 4000));
      measured = await decode(Int32Array.from([...prompt, ...measured.generated, ...next]), run, true);
    }
    if (run > 0) {
      rates.push(measured.rate);
      firsts.push(measured.firstTokenMs);
    }
  }
  context.dispose();
  model.dispose();
  console.log(JSON.stringify({ tokensPerSecond: median(rates), firstTokenMs: median(firsts) }));
}

if (flags.child !== undefined) {
  await child(flags.child);
} else {
  if (flags.before === undefined) throw new Error("--before <path of the old tessera.node> is required");
  const names = flags.configurations.split(",");
  const afterContext = JSON.parse(flags.context);
  const beforeContext = JSON.parse(flags["before-context"] ?? flags.context);
  const variants = names.flatMap((configuration) => [
    {
      name: `${configuration} before`,
      addonPath: flags.before,
      configuration,
      contextOptions: beforeContext,
    },
    { name: `${configuration} after`, addonPath: flags.after, configuration, contextOptions: afterContext },
  ]);
  const results = runPairedRounds({
    script: import.meta.url,
    variants,
    rounds: Number(flags.rounds),
    childArgs: [
      "--runs",
      flags.runs,
      "--tokens",
      flags.tokens,
      "--model",
      flags.model,
      "--prompt-tokens",
      flags["prompt-tokens"],
      ...(flags["second-turn"] ? ["--second-turn"] : []),
    ],
  });
  for (const configuration of names) {
    const before = results[`${configuration} before`];
    const after = results[`${configuration} after`];
    const ratios = after.map((value, index) => value.tokensPerSecond / before[index].tokensPerSecond);
    const rate = (list) => median(list.map((value) => value.tokensPerSecond)).toFixed(0);
    const first = (list) => median(list.map((value) => value.firstTokenMs)).toFixed(2);
    console.log(
      `${configuration}: before ${rate(before)} tokens/s (first token ${first(before)} ms), after ${rate(after)} ` +
        `(${first(after)} ms): ${median(ratios).toFixed(3)} × before (per-round ratios ` +
        `${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}, ${ratios.length} rounds)`,
    );
  }
}
