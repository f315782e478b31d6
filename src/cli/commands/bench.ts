// `tessera bench ttfb|throughput|strategies`: side-by-side benchmarks against node-llama-cpp and
// llama.cpp's own tools, written as JSON, a markdown table and an SVG chart (./tessera-bench/ by default).

import { writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { loadLlamaModel } from "../../backends/llamacpp/llama-model.js";
import { killBenchChildrenOnInterrupt } from "../../bench/bench-children.js";
import { type FlashAttention, flashAttentionNote } from "../../bench/flash-attention-setting.js";
import { describeMachine } from "../../bench/machine-info.js";
import { hugePagesNote } from "../../bench/peer-binaries.js";
import { promptTokenCounter } from "../../bench/prompt-token-counter.js";
import { remoteSpecs } from "../../bench/remote-targets.js";
import type { RunOrder } from "../../bench/run-order.js";
import { runTtfbBenchmark } from "../../bench/ttfb-benchmark.js";
import {
  ttfbChart,
  ttfbComparisonsMarkdown,
  ttfbMarkdown,
  ttfbStagesChart,
  ttfbStagesMarkdown,
} from "../../bench/ttfb-report.js";
import {
  concurrentRequests,
  type LocalRow,
  localRows,
  ttfbComparisons,
  ttfbTargets,
} from "../../bench/ttfb-targets.js";
import { checkModelSpec } from "../../gguf/default-model.js";
import {
  benchCommandLine,
  defaultBenchOut,
  prepareBenchOutput,
  publishBenchResult,
} from "../bench-output.js";
import { integerArgument, listOfIntegers } from "../number-arguments.js";
import { resolveModelPath } from "../open-model.js";
import { delayedProgressBar } from "../progress-bar.js";
import { benchFlashAttentionOption } from "./bench-flash-attention-option.js";
import { registerStrategiesBenchCommand } from "./bench-strategies.js";
import { registerThroughputBenchCommand } from "./bench-throughput.js";

interface TtfbFlags {
  model?: string;
  threads: number;
  flashAttn: FlashAttention;
  contextSize?: number;
  promptTokens?: number[];
  runs?: number;
  maxTokens?: number;
  warmup?: number;
  jitWarmup?: number;
  newConnections?: boolean;
  rows?: string[];
  order: RunOrder;
  orderSeed?: number;
  remote?: string[];
  out: string;
  quick?: boolean;
  json?: boolean;
}

function parseRows(values: ReadonlyArray<string>): LocalRow[] {
  const rows = values.flatMap((value) => value.split(","));
  for (const [index, row] of rows.entries()) {
    if (!(localRows as readonly string[]).includes(row)) {
      throw new Error(`Unknown row "${row}". Rows: ${localRows.join(", ")}.`);
    }
    // A row named twice ran twice per run under one name, and its table counted both as its runs.
    if (rows.indexOf(row) !== index) {
      throw new InvalidArgumentError(`--rows names ${row} twice; name each row once`);
    }
  }
  return rows as LocalRow[];
}

/** Unmeasured runs per row and prompt length before `bench ttfb` measures. */
const defaultTtfbWarmupRuns = 20;
/**
 * Unmeasured short generations per row before the first prompt length: past the ~1,000-1,750 requests
 * after which V8 has optimized `tessera serve`'s request path (src/bench/ttfb-warm-up.ts).
 */
const defaultJitWarmUp = 2000;
/**
 * The default warm-up's rounds start within this time: on the tiny model 2,000 rounds of the seven
 * JavaScript rows took 50-85 s on this 2-core VM; on the 1B shape a round takes ~1 s and the warm-up would
 * take over half an hour. A given --jit-warmup is run whole.
 */
const defaultJitWarmUpMaxMs = 180_000;

async function ttfb(flags: TtfbFlags): Promise<void> {
  if (flags.order === "fixed" && flags.orderSeed !== undefined) {
    throw new InvalidArgumentError(
      "--order-seed seeds the shuffles of --order shuffled; drop it with --order fixed",
    );
  }
  // Every flag is checked before --out's folder is made, --model without generating its preset: a refused
  // command leaves nothing behind, and a bad --out fails before a preset is written.
  const rows = flags.rows ? parseRows(flags.rows) : localRows;
  const remotes = remoteSpecs(flags.remote ?? []);
  checkModelSpec(flags.model ?? "tiny");
  await prepareBenchOutput(flags.out);
  // Speed on random weights is the point here: no "output is noise" notice.
  // The random-weight tiny preset unless --model says otherwise (not the CLI's trained default).
  const modelPath = await resolveModelPath(flags.model ?? "tiny", {
    quiet: flags.json === true,
    randomWeightsNotice: false,
  });
  const quick = flags.quick === true;
  const promptTokens = flags.promptTokens ?? (quick ? [16, 64] : [16, 256, 1024]);
  const runs = flags.runs ?? (quick ? 2 : 10);
  const maxTokens = flags.maxTokens ?? (quick ? 8 : 32);
  // Steady state, as a running server or app is: V8 compiles the request path over the first requests (a
  // fresh `tessera serve`: first token 65 ms, then 8-12, 5, ~3.5 ms, ~2.7 ms from about the 25th), and
  // optimizes it only after about a thousand more (docs/benchmarks.md, "Round five"). The JIT warm-up
  // takes every row past both; the per-length warm-up runs then settle each length's caches.
  const warmupRuns = flags.warmup ?? (quick ? 0 : defaultTtfbWarmupRuns);
  const jitWarmUp = flags.jitWarmup ?? (quick ? 0 : defaultJitWarmUp);
  // Room for the longest prompt, the answer and the chat template, in llama.cpp's 256-cell steps.
  const contextSize =
    flags.contextSize ?? Math.ceil((Math.max(...promptTokens) + maxTokens + 64) / 256) * 256;
  const targets = ttfbTargets({
    modelPath,
    modelId: flags.model ?? "tiny",
    threads: flags.threads,
    contextSize,
    rows,
    remotes,
    flashAttention: flags.flashAttn,
    newConnections: flags.newConnections === true,
  });
  // Server rows alone bring no tokenizer: the model's own, loaded here, sizes the prompts as the servers
  // count them. Estimated from characters, a "1024-token" prompt came out ~1,480 tokens on the tiny model
  // and overflowed every server's context.
  const own: { tokenizer: Awaited<ReturnType<typeof loadLlamaModel>> | null } = { tokenizer: null };
  const countTokens = promptTokenCounter(
    targets,
    rows.some((row) => row !== "http-floor")
      ? async () => {
          const tokenizer = await loadLlamaModel(modelPath);
          own.tokenizer = tokenizer;
          return (text) => tokenizer.tokenize(text, { addSpecial: false }).length;
        }
      : null,
  );
  const bar = delayedProgressBar(" ttfb {bar} {value}/{total} runs | {label}", {
    enabled: flags.json !== true,
  });
  let result: Awaited<ReturnType<typeof runTtfbBenchmark>>;
  try {
    result = await killBenchChildrenOnInterrupt(() =>
      runTtfbBenchmark(targets, {
        promptTokens,
        runs,
        maxTokens,
        warmupRuns,
        jitWarmUp,
        newConnections: flags.newConnections === true,
        ...(flags.jitWarmup === undefined && { jitWarmUpMaxMs: defaultJitWarmUpMaxMs }),
        ...(countTokens !== undefined && { countTokens }),
        onProgress: ({ done, total, label }) => bar.update(done, total, { label }),
        comparisons: ttfbComparisons(targets),
        order: flags.order,
        ...(flags.orderSeed !== undefined && { orderSeed: flags.orderSeed }),
      }),
    );
  } finally {
    bar.stop();
    await own.tokenizer?.dispose();
  }
  const withModel = {
    ...result,
    settings: { ...result.settings, flashAttention: flags.flashAttn },
    model: modelPath.split("/").at(-1),
    threads: flags.threads,
    command: benchCommandLine(),
  };
  const stages = ttfbStagesMarkdown(result);
  const comparisons = ttfbComparisonsMarkdown(result);
  const rowWork =
    "Work per row: the in-process rows (tessera, node-llama-cpp) and the C++ greedy runner render the model's " +
    "chat template around the prompt (the runner with llama.cpp's built-in template matcher, its times from its " +
    "own clock); `tessera serve` and llama-server both take bare text on /v1/completions (llama-server's chat " +
    "endpoint rejects the random-weight model's output). The 2nd-turn rows answer the prompt first (untimed) and " +
    "time a short follow-up in the same chat (serve: /v1/chat/completions), whose history's KV cells can be " +
    `reused. The "at once" rows send ${concurrentRequests} requests together to a server with ${concurrentRequests} slots; ` +
    "their first token is the median of the requests'. The HTTP floor row is a node:http server that loads no " +
    "model: it reads and parses each request as the serve rows' and answers one fixed text event at once, so its " +
    "first token is what a request's way to a Node server and the first event's way back cost this client, " +
    "which every served row pays on top of its own work.";
  await publishBenchResult({
    out: flags.out,
    name: "ttfb",
    result: withModel,
    markdown: `${ttfbMarkdown(withModel)}\n\n${rowWork}\n${comparisons === "" ? "" : `\n${comparisons}\n`}${stages === "" ? "" : `\n${stages}\n`}\nModel \`${withModel.model}\`, ${flags.threads} thread(s). ${flashAttentionNote(flags.flashAttn)} ${hugePagesNote} Command: \`${withModel.command}\`\n`,
    chart: ttfbChart(result),
    json: flags.json === true,
  });
  const stagesChart = ttfbStagesChart(result);
  if (stagesChart !== null) await writeFile(join(resolve(flags.out), "ttfb-stages.svg"), stagesChart);
  if (!flags.json) process.stderr.write(`machine: ${describeMachine(result.machine)}\n`);
}

export function registerBenchCommand(program: Command): void {
  const bench = program
    .command("bench")
    .description("benchmarks side by side with node-llama-cpp and llama.cpp's own tools")
    .showHelpAfterError(false)
    .showSuggestionAfterError(false)
    .addHelpText(
      "after",
      `
Examples:
  $ tessera bench ttfb --quick
  $ tessera bench ttfb --prompt-tokens 16,256,1024 --runs 10 --remote "https://api.openai.com/v1,gpt-4o-mini,OPENAI_API_KEY"
  $ tessera bench throughput --model llama-3.2-1b:q4_0
  $ tessera bench strategies --quick

llama.cpp's llama-bench and llama-server rows need \`npm run bench:peers\` first (a long build); without them the rows are skipped with a note.`,
    );
  bench
    .command("ttfb")
    .description(
      "time to first byte / first token, inter-token latency and tokens/s, median and p90, per prompt length",
    )
    .option("-m, --model <file|preset>", "model for the local rows (default: tiny)")
    .option("--threads <n>", "CPU threads for every local row", integerArgument(1, 512), 1)
    .addOption(benchFlashAttentionOption("local row"))
    .option(
      "--context-size <n>",
      "context per sequence (default: fits the longest prompt)",
      integerArgument(64),
    )
    .option("--prompt-tokens <list>", "prompt lengths in tokens (default 16,256,1024)", listOfIntegers(8))
    .option("--runs <n>", "measured runs per row and length (default 10)", integerArgument(1))
    .option("--max-tokens <n>", "tokens generated per run (default 32)", integerArgument(2))
    .option(
      "--warmup <n>",
      `unmeasured runs per row and length first, so JavaScript rows are measured warm (default ${defaultTtfbWarmupRuns}, 0 with --quick; 0 or 1 show a freshly started process)`,
      integerArgument(0),
    )
    .option(
      "--jit-warmup <n>",
      `unmeasured short generations on each row that runs JavaScript here (not llama-server, the C++ runner or remotes) before the first length, so V8 has optimized their request paths as in a long-running server (default ${defaultJitWarmUp}, or as many as start within ${defaultJitWarmUpMaxMs / 1000} s; 0 with --quick; 0 measures servers in their first minutes)`,
      integerArgument(0),
    )
    .option(
      "--new-connections",
      "open a new connection for every HTTP request (default: kept-alive connections; llama-server closes its own after each streamed answer anyway)",
    )
    .option("--rows <list...>", `local rows to run: ${localRows.join(", ")} (default: all)`)
    .addOption(
      new Option(
        "--order <order>",
        "the rows' order within each run: shuffled anew each run, or fixed as listed (the result records the shuffles' seed)",
      )
        .choices(["shuffled", "fixed"])
        .default("shuffled"),
    )
    .option(
      "--order-seed <n>",
      "seed of the shuffles, to replay a run's orders (its settings.orderSeed; the same rows must run)",
      integerArgument(0, 2 ** 32 - 1),
    )
    .option(
      "--remote <spec...>",
      'remote provider "<base URL>,<model>[,<API key variable>]"; also $TESSERA_BENCH_REMOTES',
    )
    .option(
      "-o, --out <folder>",
      `where to write ttfb.json, ttfb.md and ttfb.svg (benchmarks/results updates the committed ones)`,
      defaultBenchOut,
    )
    .option("--quick", "few short runs (16 and 64 tokens, 2 runs, 8 tokens): a smoke test")
    .option("--json", "print the result JSON instead of the table")
    .showHelpAfterError(false)
    .showSuggestionAfterError(false)
    .addHelpText(
      "after",
      `
Examples:
  $ tessera bench ttfb --quick --out /tmp/bench
  $ tessera bench ttfb --model llama-3.2-1b:q4_0 --threads 2 --runs 5
  $ TESSERA_BENCH_REMOTES="http://127.0.0.1:11434/v1,llama3.2" tessera bench ttfb --rows tessera,node-llama-cpp`,
    )
    .action((flags: TtfbFlags) => ttfb(flags));
  registerThroughputBenchCommand(bench);
  registerStrategiesBenchCommand(bench);
}
