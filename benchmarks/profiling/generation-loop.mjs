#!/usr/bin/env node
// The loop profiled in docs/benchmarks.md "Where the time goes": tessera in-process on the tiny preset,
// 1 thread, greedy, logits off, ~16-token prompts through CBlock + SimpleContext (formatter and chat
// template included), 20 unmeasured generations first.
//
//   node benchmarks/profiling/generation-loop.mjs first 2000   # maxNewTokens 1: the first token
//   node benchmarks/profiling/generation-loop.mjs decode 100   # maxNewTokens 128: the decode loop
//
// Prints the medians of GenerationMetadata.timings as JSON. With --cpu-profile <file> it writes a V8
// profile of the measured window only (50 µs sampling; summarize it with cpuprofile-summary.mjs). Under
// `perf record -g -- node --perf-basic-prof …` run it without --cpu-profile (the sampler thread would show).
// Needs dist/ (npm run build:ts) and the tiny model (generated on first use by `tessera models make tiny`).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { LlamaCppBackend } from "../../dist/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../dist/core/cblock.js";
import { resolveDefaultModel } from "../../dist/gguf/default-model.js";
import { SimpleContext } from "../../dist/stdlib/contexts/simple-context.js";

const [mode = "first", countText = "1000"] = process.argv.slice(2).filter((value) => !value.startsWith("--"));
const profileIndex = process.argv.indexOf("--cpu-profile");
const profilePath = profileIndex === -1 ? null : process.argv[profileIndex + 1];
const count = Number(countText);
const maxNewTokens = mode === "first" ? 1 : 128;
const backend = await LlamaCppBackend.create({
  model: process.env.TESSERA_PROFILE_MODEL ?? (await resolveDefaultModel()),
  modelId: "tiny",
  threads: 1,
  contextSize: 768,
  sequences: 1,
});
const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split(" ");
async function once(index) {
  const prompt = `${words[index % 10]} ${index} ${words[(index * 7) % 10]}`;
  const { thunk } = await backend.generateFromContext(new CBlock(prompt), new SimpleContext(), {
    modelOptions: { temperature: 0, maxNewTokens, ignoreEos: true },
  });
  for await (const _delta of thunk) {
  }
  await thunk.avalue();
  return thunk.generation;
}
for (let index = 0; index < 20; index++) await once(index);
const session = new Session();
if (profilePath !== null) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  await session.post("Profiler.start");
}
const started = performance.now();
const stages = {};
const rates = [];
for (let index = 0; index < count; index++) {
  const generation = await once(index + 100);
  for (const [stage, value] of Object.entries(generation.timings ?? {})) {
    if (typeof value !== "number") continue;
    stages[stage] ??= [];
    stages[stage].push(value);
  }
  if (mode === "decode" && generation.timings?.decodeMs)
    rates.push(((generation.usage.completionTokens - 1) * 1000) / generation.timings.decodeMs);
}
const wallMs = performance.now() - started;
if (profilePath !== null) {
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(profilePath, JSON.stringify(profile));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  JSON.stringify({
    mode,
    count,
    wallMs: Math.round(wallMs),
    decodeTokensPerSecond: rates.length > 0 ? Math.round(median(rates)) : null,
    medianStagesMs: Object.fromEntries(
      Object.entries(stages).map(([stage, values]) => [stage, +median(values).toFixed(4)]),
    ),
  }),
);
await backend.dispose();
