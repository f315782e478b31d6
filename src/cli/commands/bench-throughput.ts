// `tessera bench throughput`: prompt and generation tokens/s of tessera (logits off / top-20 / full)
// against node-llama-cpp and llama-bench on the same model and threads.
import type { Command } from "commander";
import { killBenchChildrenOnInterrupt } from "../../bench/bench-children.js";
import type { FlashAttention } from "../../bench/flash-attention-setting.js";
import { runThroughputBenchmark, type ThroughputLogits } from "../../bench/throughput-benchmark.js";
import { throughputChart, throughputMarkdown } from "../../bench/throughput-report.js";
import {
  benchCommandLine,
  defaultBenchOut,
  prepareBenchOutput,
  publishBenchResult,
} from "../bench-output.js";
import { integerArgument } from "../number-arguments.js";
import { resolveModelPath } from "../open-model.js";
import { delayedProgressBar } from "../progress-bar.js";
import { benchFlashAttentionOption } from "./bench-flash-attention-option.js";

interface ThroughputFlags {
  model?: string;
  threads: number;
  flashAttn: FlashAttention;
  promptTokens?: number;
  generatedTokens?: number;
  repetitions?: number;
  out: string;
  quick?: boolean;
  json?: boolean;
}

async function throughput(flags: ThroughputFlags): Promise<void> {
  await prepareBenchOutput(flags.out);
  const quick = flags.quick === true;
  const model = flags.model ?? (quick ? "tiny" : "llama-3.2-1b:q4_0");
  // Speed on random weights is the point here: no "output is noise" notice.
  const modelPath = await resolveModelPath(model, { quiet: flags.json === true, randomWeightsNotice: false });
  const logitsModes: ThroughputLogits[] = ["off", "top-20", "full"];
  const repetitions = flags.repetitions ?? (quick ? 2 : 3);
  // One progress call per repetition of each tessera mode, the greedy runner, llama-bench and node-llama-cpp.
  const steps = (repetitions + 1) * (logitsModes.length + 3);
  let step = 0;
  const bar = delayedProgressBar(" throughput {bar} {value}/{total} | {label}", {
    enabled: flags.json !== true,
  });
  let result: Awaited<ReturnType<typeof runThroughputBenchmark>>;
  try {
    // llama-bench and the greedy runner are children: an interrupt kills them too.
    result = await killBenchChildrenOnInterrupt(() =>
      runThroughputBenchmark({
        modelPath,
        modelId: model,
        threads: flags.threads,
        promptTokens: flags.promptTokens ?? (quick ? 64 : 512),
        generatedTokens: flags.generatedTokens ?? (quick ? 16 : 128),
        repetitions,
        logitsModes,
        rows: ["tessera", "node-llama-cpp", "llama-bench", "greedy-runner"],
        flashAttention: flags.flashAttn,
        onProgress: ({ label }) => bar.update(Math.min(++step, steps), steps, { label }),
      }),
    );
  } finally {
    bar.stop();
  }
  const command = benchCommandLine();
  await publishBenchResult({
    out: flags.out,
    name: "throughput",
    result: { ...result, command },
    markdown: `${throughputMarkdown(result)}\nCommand: \`${command}\`\n`,
    chart: throughputChart(result),
    json: flags.json === true,
  });
}

export function registerThroughputBenchCommand(bench: Command): void {
  bench
    .command("throughput")
    .description(
      "prompt processing and generation tokens/s: tessera (logits off, top-20, full) vs node-llama-cpp, llama-bench and the C++ greedy runner",
    )
    .option(
      "-m, --model <file|preset>",
      "model (default: llama-3.2-1b:q4_0, the 1B shape; tiny with --quick)",
    )
    .option("--threads <n>", "CPU threads for every row", integerArgument(1, 512), 1)
    .addOption(benchFlashAttentionOption("row"))
    .option("--prompt-tokens <n>", "prompt length (default 512)", integerArgument(8))
    .option("--generated-tokens <n>", "tokens generated (default 128)", integerArgument(2))
    .option("--repetitions <n>", "measured repetitions per row (default 3)", integerArgument(1))
    .option(
      "-o, --out <folder>",
      `where to write throughput.json, .md and .svg (benchmarks/results updates the committed ones)`,
      defaultBenchOut,
    )
    .option("--quick", "tiny model, 64-token prompt, 16 tokens, 2 repetitions: a smoke test")
    .option("--json", "print the result JSON instead of the table")
    .showHelpAfterError(false)
    .showSuggestionAfterError(false)
    .addHelpText(
      "after",
      `
Examples:
  $ tessera bench throughput --quick --out /tmp/bench
  $ tessera bench throughput --model llama-3.2-1b:q4_0 --threads 2 --prompt-tokens 512 --generated-tokens 128`,
    )
    .action((flags: ThroughputFlags) => throughput(flags));
}
