// `tessera bench strategies`: success rate, samples, tokens and wall time of each sampling strategy on a
// task file (or the built-in tasks), batched vs sequential best-of-n, and the pooled strategies with and
// without streaming validation, on the local backend.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { runStrategiesBenchmark } from "../../bench/strategies-benchmark.js";
import { strategiesChart, strategiesMarkdown } from "../../bench/strategies-report.js";
import {
  checkableStrategyTasks,
  checkStrategyTasks,
  defaultStrategyTasks,
  type StrategyTask,
} from "../../bench/strategy-tasks.js";
import { readGgufFile } from "../../gguf/gguf-reader.js";
import { isModelPresetName, modelPresets, presetHasRandomWeights } from "../../gguf/model-presets.js";
import { readTrainingRecord } from "../../training/training-record.js";
import {
  benchCommandLine,
  defaultBenchOut,
  prepareBenchOutput,
  publishBenchResult,
} from "../bench-output.js";
import { defaultStrategiesModel } from "../default-models.js";
import { integerArgument } from "../number-arguments.js";
import { resolveModelPath } from "../open-model.js";
import { delayedProgressBar } from "../progress-bar.js";

interface StrategiesFlags {
  model?: string;
  threads: number;
  tasks?: string;
  runs?: number;
  maxTokens?: number;
  samples?: number;
  out: string;
  quick?: boolean;
  json?: boolean;
}

/** A task file's tasks; else held-out problems of the checkable task the model was trained on, else the text tasks. */
async function loadTasks(file: string | undefined, modelPath: string): Promise<StrategyTask[]> {
  if (file === undefined) {
    const record = readTrainingRecord((await readGgufFile(modelPath)).metadataByKey);
    const task = (["addition", "sorting"] as const).find((name) => record?.corpus.startsWith(name) === true);
    return task === undefined ? defaultStrategyTasks : checkableStrategyTasks(task);
  }
  const module = (await import(pathToFileURL(resolve(file)).href)) as { tasks?: unknown; default?: unknown };
  return checkStrategyTasks(module.tasks ?? module.default, file);
}

async function strategies(flags: StrategiesFlags): Promise<void> {
  await prepareBenchOutput(flags.out);
  const quick = flags.quick === true;
  const model = flags.model ?? defaultStrategiesModel;
  const modelPath = await resolveModelPath(model, { quiet: flags.json === true });
  const tasks = (await loadTasks(flags.tasks, modelPath)).slice(0, quick ? 2 : undefined);
  const n = flags.samples ?? (quick ? 2 : 8);
  const { LlamaCppBackend } = await import("../../backends/llamacpp/llama-cpp-backend.js");
  const backend = await LlamaCppBackend.create({
    model: modelPath,
    modelId: model,
    threads: flags.threads,
    sequences: Math.max(n, 4),
  });
  const bar = delayedProgressBar(" strategies {bar} {value}/{total} | {label}", {
    enabled: flags.json !== true,
  });
  let result: Awaited<ReturnType<typeof runStrategiesBenchmark>>;
  try {
    result = await runStrategiesBenchmark({
      backend,
      model,
      threads: flags.threads,
      tasks,
      runs: flags.runs ?? (quick ? 1 : 3),
      maxTokens: flags.maxTokens ?? (quick ? 8 : 24),
      n,
      untrained: hasRandomWeights(model),
      engine: {
        counters: () => backend.context.counters,
        resetPeak: () => backend.context.resetPeakCounter(),
      },
      onProgress: ({ done, total, label }) => bar.update(done, total, { label }),
    });
  } finally {
    bar.stop();
    await backend.dispose();
  }
  const command = benchCommandLine();
  await publishBenchResult({
    out: flags.out,
    name: "strategies",
    result: { ...result, command },
    markdown: `${strategiesMarkdown(result)}\nCommand: \`${command}\`\n`,
    chart: strategiesChart(result),
    json: flags.json === true,
  });
}

/** A preset (with or without a ":quant" suffix) says whether it was trained; a GGUF file is taken as trained. */
function hasRandomWeights(model: string): boolean {
  if (existsSync(model)) return false;
  const name = model.split(":")[0] ?? "";
  return isModelPresetName(name) && presetHasRandomWeights(modelPresets[name]);
}

export function registerStrategiesBenchCommand(bench: Command): void {
  bench
    .command("strategies")
    .description(
      "each sampling strategy's success rate, samples, tokens and wall time; batched vs sequential best-of-n; " +
        "pooled strategies with and without streaming validation (tokens saved by early cancel, latencies)",
    )
    .option("-m, --model <file|preset>", `model (default: ${defaultStrategiesModel})`)
    .option("--threads <n>", "CPU threads", integerArgument(1, 512), 1)
    .option(
      "--tasks <file.mjs>",
      "a module exporting tasks: [{ id, prompt, requirement, verify(text) }] (default: built-in; held-out problems for a model trained on addition or sorting)",
    )
    .option("--runs <n>", "runs per task and strategy (default 3)", integerArgument(1))
    .option("-n, --max-tokens <n>", "most tokens per sample (default 24)", integerArgument(1))
    // -n means --max-tokens here as in run and chat; the sample count gets a name of its own.
    .option("--samples <n>", "samples of best-of-n and majority voting (default 8)", integerArgument(2, 64))
    .option(
      "-o, --out <folder>",
      `where to write strategies.json, .md and .svg (benchmarks/results updates the committed ones)`,
      defaultBenchOut,
    )
    .option("--quick", "two tasks, one run, 2 samples, 8 tokens: a smoke test")
    .option("--json", "print the result JSON instead of the tables")
    .showHelpAfterError(false)
    .showSuggestionAfterError(false)
    .addHelpText(
      "after",
      `
Examples:
  $ tessera bench strategies --quick --out /tmp/bench
  $ tessera bench strategies --tasks ./my-tasks.mjs --model llama-3.2-1b:q4_0 --threads 2 --runs 5`,
    )
    .action((flags: StrategiesFlags) => strategies(flags));
}
