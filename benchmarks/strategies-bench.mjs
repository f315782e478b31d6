#!/usr/bin/env node
// Sampling strategies on the local backend: for each default task of `tessera bench strategies`
// (src/bench/strategy-tasks.ts) and each strategy, the success rate, samples drawn, tokens generated and
// wall time; then best-of-n batched (one generateFromRaw batch: n parallel sequences) against the same n
// samples drawn one after another, and against one sample.
// Run `npm run build` first.
//
//   node benchmarks/strategies-bench.mjs [--model tiny] [--threads 1] [--runs 3] [--tokens 24] [--n 8] [--json out.json]
//   node benchmarks/strategies-bench.mjs --model llama-3.2-1b:q4_0 --batching-only   # the batching comparison alone
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { LlamaCppBackend } from "../dist/backends/llamacpp/llama-cpp-backend.js";
import { median } from "../dist/bench/stats.js";
import { defaultStrategyTasks as tasks } from "../dist/bench/strategy-tasks.js";
import {
  act,
  BestOfNStrategy,
  ChatContext,
  Instruction,
  MajorityVotingStrategy,
  MultiTurnStrategy,
  RejectionSamplingStrategy,
  RepairTemplateStrategy,
  req,
  SimpleContext,
  simpleValidate,
} from "../dist/stdlib/index.js";

const { values: flags } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    threads: { type: "string", default: "1" },
    runs: { type: "string", default: "3" },
    tokens: { type: "string", default: "24" },
    n: { type: "string", default: "8" },
    json: { type: "string" },
    "batching-only": { type: "boolean", default: false },
  },
});
const runs = Number(flags.runs);
const n = Number(flags.n);
const modelOptions = { maxNewTokens: Number(flags.tokens), temperature: 0.9 };

const tokensOf = (thunks) =>
  thunks.reduce((sum, thunk) => sum + (thunk.generation.usage?.completionTokens ?? 0), 0);

const strategies = [
  { name: "single sample", make: () => null, context: () => new SimpleContext() },
  {
    name: "rejection x4",
    make: () => new RejectionSamplingStrategy({ loopBudget: 4 }),
    context: () => new SimpleContext(),
  },
  {
    name: "repair template x4",
    make: () => new RepairTemplateStrategy({ loopBudget: 4 }),
    context: () => new SimpleContext(),
  },
  {
    name: "multi-turn x4",
    make: () => new MultiTurnStrategy({ loopBudget: 4 }),
    context: () => new ChatContext(),
  },
  {
    name: "rejection 4 rounds x2 concurrent",
    make: () => new RejectionSamplingStrategy({ loopBudget: 4, concurrencyBudget: 2 }),
    context: () => new SimpleContext(),
  },
  {
    name: `best-of-${n} (logprob)`,
    make: () => new BestOfNStrategy({ n }),
    context: () => new SimpleContext(),
  },
  {
    name: `majority vote ${n}`,
    make: () => new MajorityVotingStrategy({ n }),
    context: () => new SimpleContext(),
  },
];

const backend = await LlamaCppBackend.create({
  model: flags.model,
  threads: Number(flags.threads),
  sequences: Math.max(n, 4),
});
// One warm-up generation so the first measured run does not pay for lazy setup.
await act("warm up", new SimpleContext(), backend, { modelOptions });

const strategyRows = [];
for (const { name, make, context } of flags["batching-only"] ? [] : strategies) {
  let successes = 0;
  let attempts = 0;
  const samples = [];
  const tokens = [];
  const wallMs = [];
  for (const task of tasks) {
    const requirement = req(task.requirement, simpleValidate(task.verify));
    for (let run = 0; run < runs; run += 1) {
      const instruction = new Instruction({ description: task.prompt, requirements: [requirement] });
      const strategy = make();
      const started = performance.now();
      let thunks;
      let passed;
      if (strategy === null) {
        const { output } = await act(instruction, context(), backend, { modelOptions });
        thunks = [output];
        passed = task.verify(output.value);
      } else {
        const result = await strategy.sample(instruction, context(), backend, [requirement], {
          modelOptions,
        });
        thunks = result.sampleGenerations;
        passed = result.success;
      }
      wallMs.push(performance.now() - started);
      samples.push(thunks.length);
      tokens.push(tokensOf(thunks));
      attempts += 1;
      if (passed) successes += 1;
    }
  }
  strategyRows.push({
    strategy: name,
    successRate: successes / attempts,
    attempts,
    meanSamples: samples.reduce((a, b) => a + b, 0) / samples.length,
    meanTokens: tokens.reduce((a, b) => a + b, 0) / tokens.length,
    medianWallMs: median(wallMs),
  });
}

// Batched versus sequential best-of-n: n samples of one prompt, each a fixed length. Every measurement gets a
// prompt never seen before, so no mode profits from KV cells a previous run left behind (prefix reuse), and
// every mode asks for top-1 logprobs, as best-of-n does, so all do the same work per token.
const fixed = { ...modelOptions, ignoreEos: true, logits: 1 };
// A realistic instruction (description plus five requirements, ~100 tokens) whose first line is unique.
const freshPrompt = (run, mode) =>
  new Instruction({
    description: `(Run ${run}, ${mode}.) ${tasks[0].prompt}`,
    requirements: tasks.map((task) => task.requirement),
  });
const timings = { one: [], batched: [], sequential: [] };
// Where the time of one sample and of the batch went, from GenerationMetadata.timings (slowest sequence).
const phases = { onePrefillMs: [], oneDecodeMs: [], batchedPrefillMs: [], batchedDecodeMs: [] };
const slowest = (thunks, phase) => Math.max(...thunks.map((thunk) => thunk.generation.timings?.[phase] ?? 0));
for (let run = 0; run < runs; run += 1) {
  let started = performance.now();
  const single = await act(freshPrompt(run, "one"), new SimpleContext(), backend, { modelOptions: fixed });
  timings.one.push(performance.now() - started);
  phases.onePrefillMs.push(slowest([single.output], "prefillMs"));
  phases.oneDecodeMs.push(slowest([single.output], "decodeMs"));

  started = performance.now();
  const batch = await new BestOfNStrategy({ n }).sample(
    freshPrompt(run, "batched"),
    new SimpleContext(),
    backend,
    null,
    { modelOptions: fixed },
  );
  timings.batched.push(performance.now() - started);
  phases.batchedPrefillMs.push(slowest(batch.sampleGenerations, "prefillMs"));
  phases.batchedDecodeMs.push(slowest(batch.sampleGenerations, "decodeMs"));

  // One prompt for the n sequential samples: after the first, later samples may reuse its prefix, as a
  // sequential best-of-n would.
  const sequentialPrompt = freshPrompt(run, "sequential");
  started = performance.now();
  for (let sample = 0; sample < n; sample += 1) {
    await act(sequentialPrompt, new SimpleContext(), backend, { modelOptions: fixed });
  }
  timings.sequential.push(performance.now() - started);
}
const batching = {
  n,
  tokensPerSample: fixed.maxNewTokens,
  oneSampleMs: median(timings.one),
  batchedMs: median(timings.batched),
  sequentialMs: median(timings.sequential),
  ...Object.fromEntries(Object.entries(phases).map(([name, values]) => [name, median(values)])),
};
await backend.dispose();

const date = new Date().toISOString().slice(0, 10);
if (strategyRows.length > 0) {
  console.log(
    `\n## Strategies on ${flags.model} (${flags.threads} thread(s), ${tasks.length} tasks x ${runs} runs, ${flags.tokens} tokens max, ${date})`,
  );
  console.log("| strategy | success | samples/task | tokens/task | median wall ms |");
  console.log("|---|---:|---:|---:|---:|");
  for (const row of strategyRows) {
    console.log(
      `| ${row.strategy} | ${(row.successRate * 100).toFixed(0)}% | ${row.meanSamples.toFixed(1)} | ${row.meanTokens.toFixed(0)} | ${row.medianWallMs.toFixed(0)} |`,
    );
  }
}
console.log(`\n## Best-of-${n} on ${flags.model}, ${fixed.maxNewTokens} tokens each (median of ${runs})`);
console.log("| mode | wall ms | x one sample |");
console.log("|---|---:|---:|");
for (const [label, value] of [
  ["one sample", batching.oneSampleMs],
  [`best-of-${n} batched (parallel sequences)`, batching.batchedMs],
  [`best-of-${n} sequential`, batching.sequentialMs],
]) {
  console.log(`| ${label} | ${value.toFixed(1)} | ${(value / batching.oneSampleMs).toFixed(2)} |`);
}
console.log(
  `Prefill / decode ms: one sample ${batching.onePrefillMs.toFixed(0)} / ${batching.oneDecodeMs.toFixed(0)}, ` +
    `batch of ${n} (slowest sequence) ${batching.batchedPrefillMs.toFixed(0)} / ${batching.batchedDecodeMs.toFixed(0)}`,
);
if (flags.json) {
  writeFileSync(
    flags.json,
    `${JSON.stringify({ date, model: flags.model, strategyRows, batching }, null, 2)}\n`,
  );
}
