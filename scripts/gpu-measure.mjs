#!/usr/bin/env node
// The measuring half of scripts/gpu-check.sh: runs on the GPU machine with the carried Node and the
// project's dist/, against the llama.cpp that gpu-check.sh built there (TESSERA_LLAMA_LIBRARIES_DIR).
// Every figure is written to $OUT/results.json and $OUT/results.md as soon as it is measured, so a
// timeout keeps what was measured.
//
// Environment (set by gpu-check.sh): GPU_CHECK_OUT, GPU_CHECK_MODELS ("path|label,path|label"),
// GPU_CHECK_LLAMA_BENCH, GPU_CHECK_DEADLINE_MS (epoch ms; later steps are skipped after it),
// GPU_CHECK_DRY_RUN=1 (CPU, tiny sizes), GPU_CHECK_THREADS.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";

const dry = process.env.GPU_CHECK_DRY_RUN === "1";
const out = process.env.GPU_CHECK_OUT ?? ".";
const deadline = Number(process.env.GPU_CHECK_DEADLINE_MS ?? Number.POSITIVE_INFINITY);
const threads = Number(process.env.GPU_CHECK_THREADS ?? "1");
const llamaBench = process.env.GPU_CHECK_LLAMA_BENCH;
const models = (process.env.GPU_CHECK_MODELS ?? "")
  .split(",")
  .filter((entry) => entry !== "")
  .map((entry) => {
    const [path, label] = entry.split("|");
    return { path, label: label ?? path };
  });

// Sizes: the on a GPU, a few tokens in a dry run (every step still runs).
const sizes = dry
  ? {
      decodeTokens: 8,
      firstTokenPrompts: [16, 64, 128],
      bestOf: 8,
      abortPrompt: 384,
      contextSize: 512,
      batch: 128,
    }
  : {
      decodeTokens: 128,
      firstTokenPrompts: [16, 256, 1024],
      bestOf: 8,
      abortPrompt: 4096,
      contextSize: 4608,
      batch: 512,
    };

const results = { started: new Date().toISOString(), dryRun: dry, sizes, models: {} };

function save() {
  writeFileSync(join(out, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(out, "results.md"), markdown());
}

function markdown() {
  const lines = [
    `# GPU check ${results.dryRun ? "(DRY RUN on the CPU: not GPU figures)" : ""}`,
    "",
    `started ${results.started}`,
    "",
  ];
  for (const [label, model] of Object.entries(results.models)) {
    lines.push(`## ${label}`, "");
    for (const [name, value] of Object.entries(model)) lines.push(`- ${name}: ${JSON.stringify(value)}`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

function record(label, name, value) {
  results.models[label] ??= {};
  results.models[label][name] = value;
  save();
  console.log(`gpu-check: ${label} ${name} = ${JSON.stringify(value)}`);
}

function timeLeft() {
  return Date.now() < deadline;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function promptOf(model, count) {
  let text = "The history of computing is a story of people, machines and ideas. ";
  let tokens = model.tokenize(text);
  while (tokens.length < count) {
    text += text;
    tokens = model.tokenize(text);
  }
  return tokens.slice(0, count);
}

async function decodeRate(context, prompt, extra = {}) {
  const result = await context
    .generate(prompt, {
      temperature: 0,
      maxTokens: sizes.decodeTokens,
      ignoreEos: true,
      reusePrefix: false,
      ...extra,
    })
    .collect();
  return result.generatedTokens / ((result.timings.decodeMs ?? result.timings.totalMs) / 1000);
}

async function step(label, name, action) {
  if (!timeLeft()) {
    record(label, name, "skipped: out of time");
    return;
  }
  try {
    record(label, name, await action());
  } catch (error) {
    record(label, name, `failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function runLlamaBench(path) {
  if (llamaBench === undefined) return "no llama-bench";
  const args = [
    "-m",
    path,
    "-ngl",
    dry ? "0" : "99",
    "-p",
    "0",
    "-n",
    String(sizes.decodeTokens),
    "-r",
    "3",
    "-t",
    String(threads),
    "-o",
    "json",
  ];
  const run = spawnSync(llamaBench, args, { encoding: "utf8", timeout: 180_000 });
  if (run.status !== 0) return `failed (exit ${run.status}): ${(run.stderr ?? "").slice(-400)}`;
  const rows = JSON.parse(run.stdout);
  return {
    tokensPerSecond: rows[0]?.avg_ts,
    backend: rows[0]?.backends,
    gpu: rows[0]?.gpu_info,
    args: args.join(" "),
  };
}

for (const { path, label } of models) {
  if (!timeLeft()) {
    record(label, "all", "skipped: out of time");
    continue;
  }
  let model;
  try {
    model = await loadLlamaModel(path, dry ? { gpuLayers: "auto" } : { gpuLayers: "max", requireGpu: true });
  } catch (error) {
    // GpuUnavailableError lists every backend and why it did not load: the most useful line of a failed run.
    record(label, "load", `failed: ${error instanceof Error ? error.message : String(error)}`);
    continue;
  }
  try {
    record(label, "offload", {
      backend: model.gpu.backend,
      layers: model.gpu.layers,
      explanation: model.gpu.explanation,
    });
    const context = await model.createContext({
      contextSize: sizes.contextSize,
      batchSize: sizes.batch,
      sequences: sizes.bestOf,
      threads,
    });
    record(label, "context", { prefillChunkSize: context.prefillChunkSize, batchSize: context.batchSize });
    const shortPrompt = promptOf(model, 16);
    await decodeRate(context, shortPrompt); // warm-up
    let tesseraRate;
    await step(label, "decode tokens/s (tessera, median of 3)", async () => {
      const rates = [];
      for (let run = 0; run < 3; run++) rates.push(await decodeRate(context, shortPrompt));
      tesseraRate = median(rates);
      return { median: tesseraRate, runs: rates };
    });
    await step(label, "decode tokens/s (llama-bench, same sources)", async () => {
      const bench = runLlamaBench(path);
      if (
        typeof bench === "object" &&
        typeof bench.tokensPerSecond === "number" &&
        tesseraRate !== undefined
      ) {
        return { ...bench, tesseraRatio: tesseraRate / bench.tokensPerSecond, goal: ">= 0.95" };
      }
      return bench;
    });
    for (const promptTokens of sizes.firstTokenPrompts) {
      await step(label, `first token ms at ${promptTokens} prompt tokens (median of 3)`, async () => {
        const prompt = promptOf(model, promptTokens);
        const times = [];
        for (let run = 0; run < 3; run++) {
          const result = await context
            .generate(prompt, { temperature: 0, maxTokens: 1, reusePrefix: false })
            .collect();
          times.push(result.timings.timeToFirstTokenMs);
        }
        return { median: median(times), runs: times };
      });
    }
    await step(label, `best-of-${sizes.bestOf} in one batch vs one sample (wall time)`, async () => {
      const options = (seed) => ({
        temperature: 1,
        seed,
        maxTokens: sizes.decodeTokens,
        ignoreEos: true,
        reusePrefix: false,
      });
      let started = performance.now();
      await context.generate(shortPrompt, options(1)).collect();
      const one = performance.now() - started;
      started = performance.now();
      await Promise.all(
        Array.from({ length: sizes.bestOf }, (_, index) =>
          context.generate(shortPrompt, options(index + 1)).collect(),
        ),
      );
      const many = performance.now() - started;
      return { oneMs: one, batchMs: many, ratio: many / one, goal: "<= 1.5" };
    });
    await step(label, "logits capture decode tokens/s vs off", async () => {
      const off = await decodeRate(context, shortPrompt);
      const top20 = await decodeRate(context, shortPrompt, { logits: 20 });
      const full = await decodeRate(context, shortPrompt, { logits: "full" });
      return { off, top20, full, top20Ratio: top20 / off, fullRatio: full / off, goal: "within 3%" };
    });
    await step(label, `abort latency during a ${sizes.abortPrompt}-token prefill`, async () => {
      const prompt = promptOf(model, sizes.abortPrompt);
      const measure = async (target) => {
        const full = await target
          .generate(prompt, { temperature: 0, maxTokens: 1, reusePrefix: false })
          .collect();
        const prefillMs = full.timings.prefillMs;
        const latencies = [];
        for (let run = 0; run < 3; run++) {
          const stream = target.generate(prompt, { temperature: 0, maxTokens: 1, reusePrefix: false });
          const settled = stream.collect().catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, prefillMs * 0.4));
          const abortedAt = performance.now();
          stream.cancel();
          await settled;
          latencies.push(performance.now() - abortedAt);
        }
        return { prefillMs, prefillChunkSize: target.prefillChunkSize, abortLatencyMs: latencies };
      };
      const chunked = await measure(context);
      // The same prefill with one step for the whole prompt: what the abort would wait without chunks.
      const whole = await model.createContext({
        contextSize: sizes.contextSize,
        batchSize: sizes.abortPrompt,
        prefillChunkSize: sizes.abortPrompt,
        threads,
      });
      try {
        return { chunked, wholePrompt: await measure(whole) };
      } finally {
        await whole[Symbol.asyncDispose]();
      }
    });
    await context[Symbol.asyncDispose]();
  } finally {
    model.dispose();
  }
}
results.finished = new Date().toISOString();
save();
