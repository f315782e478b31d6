#!/usr/bin/env node
// The cost of cut-by recording (issue 18), on the raw addon: decode tokens/s of this build with cut-by
// off against another build (the commit before it), and with cut-by on. tiny F32 model, 1 thread, one
// sequence, 128 generated tokens after a 24-token prompt, raw top-20 captured.
//
//   node benchmarks/native-cut-by.mjs --before /path/to/old/native/build/Release/tessera.node [--rounds 15]
//
// Two sampler configurations: "greedy" (arg-max on untouched logits, the dense path; cut-by has nothing
// to record there) and "chain" (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05: the candidate array,
// where cut-by records) and "penalized" (below). Each round runs every variant once in a fresh child process, in an order that
// alternates between rounds, so a noisy minute on a shared machine hits all alike; a figure is the median
// over rounds, a ratio the median of the per-round ratios.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadRawAddon, median, runPairedRounds } from "./lib/paired-addon-rounds.mjs";

const { values: flags } = parseArgs({
  options: {
    before: { type: "string" },
    configurations: { type: "string", default: "greedy,chain,penalized" },
    after: { type: "string", default: "native/build/Release/tessera.node" },
    rounds: { type: "string", default: "15" },
    runs: { type: "string", default: "5" },
    tokens: { type: "string", default: "128" },
    model: { type: "string", default: "models/tiny-f32.gguf" },
    child: { type: "string" },
  },
});

const configurations = {
  greedy: { greedy: true },
  chain: { greedy: false, temperature: 0.8, topK: 40, topP: 0.95, minP: 0.05 },
  // The worst case for cut-by on: a penalty and a top-k that cuts inside the raw top-20 on every token,
  // so the counterfactual chain (without the penalties) runs on a copy of the row every time.
  penalized: { greedy: false, temperature: 0.8, topK: 10, repeatPenalty: 1.1 },
};

async function child(spec) {
  const { addonPath, configuration, cutBy } = JSON.parse(spec);
  const addon = loadRawAddon(addonPath);
  const model = await addon.loadModel(resolve(flags.model), { gpuLayers: 0, useMmap: true }).promise;
  const context = await model.createContext({
    contextSize: 512,
    batchSize: 64,
    sequences: 1,
    threads: 1,
    batchThreads: 1,
    unifiedKvCache: false,
  });
  const tokens = Number(flags.tokens);
  const rates = [];
  for (let run = 0; run <= Number(flags.runs); run++) {
    const prompt = Int32Array.from({ length: 24 }, (_, index) => 100 + ((index * 37 + run * 11) % 5000));
    const generation = context.generate({
      tokens: prompt,
      seed: 7 + run,
      ...configurations[configuration],
      rawTopK: 20,
      ...(cutBy && { recordCutBy: true }),
      maxTokens: tokens,
      ignoreEos: true,
      promptLogprobs: false,
      reusePrefix: false,
      queueCapacity: 32,
    });
    let first = 0;
    let count = 0;
    for (;;) {
      const batch = await generation.pull(32);
      if (count === 0 && batch.count > 0) first = performance.now();
      count += batch.count;
      if (batch.done) break;
    }
    const ended = performance.now();
    // Decode rate after the first token (the prefill is not what cut-by changes).
    if (run > 0) rates.push((count - 1) / ((ended - first) / 1000));
  }
  context.dispose();
  model.dispose();
  console.log(JSON.stringify({ tokensPerSecond: median(rates) }));
}

if (flags.child !== undefined) {
  await child(flags.child);
} else {
  if (flags.before === undefined) throw new Error("--before <path of the old tessera.node> is required");
  const variants = [];
  for (const configuration of flags.configurations.split(",")) {
    variants.push({ name: `${configuration} before`, addonPath: flags.before, configuration, cutBy: false });
    variants.push({ name: `${configuration} off`, addonPath: flags.after, configuration, cutBy: false });
    variants.push({ name: `${configuration} on`, addonPath: flags.after, configuration, cutBy: true });
  }
  const results = runPairedRounds({
    script: import.meta.url,
    variants,
    rounds: Number(flags.rounds),
    childArgs: ["--runs", flags.runs, "--tokens", flags.tokens, "--model", flags.model],
  });
  for (const configuration of flags.configurations.split(",")) {
    const rates = (name) => results[`${configuration} ${name}`].map((value) => value.tokensPerSecond);
    const before = rates("before");
    const off = rates("off");
    const on = rates("on");
    const offRatio = median(off.map((value, index) => value / before[index]));
    const onRatio = median(on.map((value, index) => value / off[index]));
    console.log(
      `${configuration}: before ${median(before).toFixed(0)} tokens/s, cut-by off ${median(off).toFixed(0)} ` +
        `(${offRatio.toFixed(3)} × before), cut-by on ${median(on).toFixed(0)} (${onRatio.toFixed(3)} × off)`,
    );
  }
}
