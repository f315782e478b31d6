// Prompt processing and generation speed (tokens/s) of tessera with logits off, top-20 and full vectors,
// against node-llama-cpp, llama.cpp's llama-bench and the C++ greedy runner on the same GGUF and thread
// count. Each figure is the median and p90 over repetitions; rows that cannot run here say why.
//
// tessera, the greedy runner and llama-bench take turns within each repetition (llama-bench with -r 1 per
// turn), so their figures pair up run by run; node-llama-cpp runs its repetitions afterwards. Decode speed
// depends on how many cells are already in the cache: tessera and the runner decode after the prompt,
// llama-bench's tg test from an empty cache, so llama-bench and the runner's tg test are also run after
// as many cells as the prompt ("after the prompt" rows), and each comparison says which it uses.
import { spawn } from "node:child_process";
import type { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import { releaseLogitsRows } from "../backends/llamacpp/release-logits-rows.js";
import { CBlock } from "../core/cblock.js";
import type { LogitsRequest } from "../core/model-options.js";
import { SimpleContext } from "../stdlib/contexts/simple-context.js";
import { trackBenchChild } from "./bench-children.js";
import { BenchTargetUnavailableError } from "./errors/bench-target-unavailable-error.js";
import {
  benchFlashAttentionDefault,
  type FlashAttention,
  nodeLlamaCppFlashAttention,
} from "./flash-attention-setting.js";
import { GreedyRunnerProcess, greedyRunnerName } from "./greedy-runner-process.js";
import { type MachineInfo, machineInfo } from "./machine-info.js";
import { comparePaired, type PairedComparison } from "./paired-comparison.js";
import { findPeerBinary, peerEnvironment, peerMissingNote } from "./peer-binaries.js";
import { type SampleSummary, summarize } from "./stats.js";
import { buildUniquePrompt, randomSalt } from "./unique-prompts.js";

export type ThroughputLogits = "off" | "top-20" | "full";

export const throughputRowNames = ["tessera", "node-llama-cpp", "llama-bench", "greedy-runner"] as const;
export type ThroughputRowName = (typeof throughputRowNames)[number];

/** Row names of the references; "after the prompt" rows decode after as many cells as the prompt. */
export const referenceRows = {
  llamaBench: "llama-bench",
  llamaBenchAfterPrompt: "llama-bench, tg after the prompt",
  runner: greedyRunnerName,
  runnerTg: "tg on the prebuilt libraries (C++)",
  runnerTgAfterPrompt: "tg on the prebuilt libraries (C++), after the prompt",
} as const;

export interface ThroughputOptions {
  modelPath: string;
  modelId: string;
  threads: number;
  promptTokens: number;
  generatedTokens: number;
  repetitions: number;
  logitsModes: ReadonlyArray<ThroughputLogits>;
  rows: ReadonlyArray<ThroughputRowName>;
  /** Flash attention of every row; default "off" (tessera's CPU default; the peers' is "auto"). */
  flashAttention?: FlashAttention;
  onProgress?: (progress: { label: string }) => void;
}

export interface ThroughputRow {
  target: string;
  logits: ThroughputLogits;
  skipped: string | null;
  promptTokensPerSecond: SampleSummary;
  generatedTokensPerSecond: SampleSummary;
  samples: { prompt: number[]; generated: number[] };
}

export interface ThroughputResult {
  benchmark: "throughput";
  createdAt: string;
  machine: MachineInfo;
  model: string;
  settings: {
    threads: number;
    promptTokens: number;
    generatedTokens: number;
    repetitions: number;
    /** Flash attention of every row. */
    flashAttention: FlashAttention;
  };
  rows: ThroughputRow[];
  /** tessera (logits off) over each reference, repetition by repetition; above 1× tessera is faster. */
  comparisons: PairedComparison[];
}

function row(
  target: string,
  logits: ThroughputLogits,
  prompt: number[],
  generated: number[],
  skipped: string | null = null,
): ThroughputRow {
  return {
    target,
    logits,
    skipped,
    promptTokensPerSecond: summarize(prompt),
    generatedTokensPerSecond: summarize(generated),
    samples: { prompt, generated },
  };
}

/** The setting every row runs with. */
const flashAttentionOf = (options: ThroughputOptions): FlashAttention =>
  options.flashAttention ?? benchFlashAttentionDefault;

const logitsRequest: Record<ThroughputLogits, LogitsRequest> = { off: false, "top-20": 20, full: "full" };

interface Series {
  prompt: Array<number | null>;
  generated: Array<number | null>;
}

const newSeries = (): Series => ({ prompt: [], generated: [] });
const finite = (values: ReadonlyArray<number | null>) =>
  values.filter((value): value is number => value !== null);

/**
 * tessera in its logits modes, the greedy runner (greedy decode, then its tg test from empty and after the
 * prompt) and llama-bench (-r 1), in turns within each repetition; index i of every series is repetition i.
 */
async function interleavedRows(
  options: ThroughputOptions,
): Promise<{ rows: ThroughputRow[]; series: Map<string, Series> }> {
  const { LlamaCppBackend } = await import("../backends/llamacpp/llama-cpp-backend.js");
  const contextSize = Math.ceil((options.promptTokens + options.generatedTokens + 64) / 256) * 256;
  const batchSize = Math.max(512, options.promptTokens + 64);
  const series = new Map<string, Series>();
  const notes = new Map<string, string>();
  const take = (name: string) => {
    let found = series.get(name);
    if (found === undefined) {
      found = newSeries();
      series.set(name, found);
    }
    return found;
  };
  const fail = (names: string[], error: unknown) => {
    const note = `failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
    for (const name of names) notes.set(name, note);
  };
  const withTessera = options.rows.includes("tessera");
  const backend: LlamaCppBackend | undefined = withTessera
    ? await LlamaCppBackend.create({
        model: options.modelPath,
        modelId: options.modelId,
        threads: options.threads,
        contextSize,
        sequences: 1,
        batchSize,
        flashAttention: flashAttentionOf(options),
      })
    : undefined;
  const runnerNames = [referenceRows.runner, referenceRows.runnerTg, referenceRows.runnerTgAfterPrompt];
  let runner: GreedyRunnerProcess | undefined;
  if (options.rows.includes("greedy-runner")) {
    try {
      runner = await GreedyRunnerProcess.start({
        modelPath: options.modelPath,
        threads: options.threads,
        contextSize,
        batchSize,
        chat: true,
        flashAttention: flashAttentionOf(options),
      });
    } catch (error) {
      const note = BenchTargetUnavailableError.isInstance(error) ? error.note : String(error);
      for (const name of runnerNames) notes.set(name, note);
    }
  }
  const llamaBench = options.rows.includes("llama-bench") ? findPeerBinary("llama-bench") : null;
  if (options.rows.includes("llama-bench") && llamaBench === null) {
    for (const name of [referenceRows.llamaBench, referenceRows.llamaBenchAfterPrompt])
      notes.set(name, peerMissingNote("llama-bench"));
  }
  let salt = randomSalt();
  const countTokens = async (text: string) =>
    backend === undefined
      ? Math.round(text.length / 4)
      : backend.model.tokenize(text, { addSpecial: false }).length;
  try {
    // One unmeasured repetition first: page-in of the weights, first allocations.
    for (let repetition = -1; repetition < options.repetitions; repetition++) {
      const measured = repetition >= 0;
      const step = `repetition ${repetition + 2}/${options.repetitions + 1}`;
      for (const mode of backend === undefined ? [] : options.logitsModes) {
        options.onProgress?.({ label: `tessera, logits ${mode}, ${step}` });
        const text = await buildUniquePrompt(options.promptTokens, salt++, countTokens);
        const { thunk } = await backend!.generateFromContext(new CBlock(text.text), new SimpleContext(), {
          modelOptions: {
            temperature: 0,
            maxNewTokens: options.generatedTokens,
            ignoreEos: true,
            logits: logitsRequest[mode],
            rawLogits: logitsRequest[mode],
          } as never,
        });
        await thunk.avalue();
        const { usage, timings } = thunk.generation;
        // Done with the rows, as a caller that keeps results but not their full logits would be: without
        // this they come back to the context only at a collection during a later repetition, which then
        // copies or allocates fresh rows while it decodes (docs/benchmarks.md, "Round nine").
        releaseLogitsRows(thunk.generation);
        if (!measured) continue;
        const target = take(tesseraName(mode));
        // Prompt speed counts the tokens this generation decoded in its prefill time: not the cells it
        // reused, which include the prompt's first 30% that its prefill ahead decoded while the prompt was
        // tokenized (docs/native.md); counted whole, that read 51.7k tokens/s where the prefill ran at 36k.
        const output = thunk.generateLog?.modelOutput as { reusedPromptTokens?: number | null } | undefined;
        const decoded = usage ? usage.promptTokens - (output?.reusedPromptTokens ?? 0) : 0;
        target.prompt.push(timings?.prefillMs && decoded > 0 ? (decoded * 1000) / timings.prefillMs : null);
        target.generated.push(
          usage && timings?.decodeMs && usage.completionTokens > 1
            ? ((usage.completionTokens - 1) * 1000) / timings.decodeMs
            : null,
        );
      }
      if (runner !== undefined && !notes.has(referenceRows.runner)) {
        options.onProgress?.({ label: `${greedyRunnerName}, ${step}` });
        try {
          const text = await buildUniquePrompt(options.promptTokens, salt++, countTokens);
          const generation = await runner.generate(text.text, options.generatedTokens);
          const depth = generation.promptTokens;
          const fromEmpty = await runner.tokenGeneration(options.generatedTokens, 0);
          const afterPrompt = await runner.tokenGeneration(options.generatedTokens, depth);
          if (measured) {
            const prefillMs = generation.firstTokenMs - generation.tokenizeMs;
            take(referenceRows.runner).prompt.push(prefillMs > 0 ? (depth * 1000) / prefillMs : null);
            take(referenceRows.runner).generated.push(generation.decodeTokensPerSecond || null);
            take(referenceRows.runnerTg).generated.push(fromEmpty);
            take(referenceRows.runnerTgAfterPrompt).generated.push(afterPrompt);
          }
        } catch (error) {
          fail(runnerNames, error);
        }
      }
      if (llamaBench !== null && !notes.has(referenceRows.llamaBench)) {
        options.onProgress?.({ label: `llama-bench, ${step}` });
        try {
          const entries = await runLlamaBench(llamaBench, options);
          if (measured) {
            const at = (depth: number, generated: boolean) =>
              entries.find(
                (entry) =>
                  (entry.n_depth ?? 0) === depth &&
                  (generated ? entry.n_gen > 0 : entry.n_prompt > 0 && entry.n_gen === 0),
              )?.avg_ts ?? null;
            take(referenceRows.llamaBench).prompt.push(at(0, false));
            take(referenceRows.llamaBench).generated.push(at(0, true));
            take(referenceRows.llamaBenchAfterPrompt).generated.push(at(options.promptTokens, true));
          }
        } catch (error) {
          fail([referenceRows.llamaBench, referenceRows.llamaBenchAfterPrompt], error);
        }
      }
    }
  } finally {
    runner?.close();
    await backend?.dispose();
  }
  const rows: ThroughputRow[] = [];
  if (backend !== undefined) {
    for (const mode of options.logitsModes) {
      const values = series.get(tesseraName(mode)) ?? newSeries();
      rows.push(row("tessera", mode, finite(values.prompt), finite(values.generated)));
    }
  }
  const referenceNames = [
    ...(options.rows.includes("llama-bench")
      ? [referenceRows.llamaBench, referenceRows.llamaBenchAfterPrompt]
      : []),
    ...(options.rows.includes("greedy-runner") ? runnerNames : []),
  ];
  for (const name of referenceNames) {
    const values = series.get(name) ?? newSeries();
    rows.push(row(name, "off", finite(values.prompt), finite(values.generated), notes.get(name) ?? null));
  }
  return { rows, series };
}

const tesseraName = (mode: ThroughputLogits) => `tessera, logits ${mode}`;

/** tessera with logits off over each reference that ran, repetition by repetition. */
export function throughputComparisons(series: ReadonlyMap<string, Series>): PairedComparison[] {
  const tessera = series.get(tesseraName("off"));
  if (tessera === undefined) return [];
  const comparisons: PairedComparison[] = [];
  const add = (reference: string, figure: "prompt" | "generated", title: string) => {
    const theirs = series.get(reference);
    if (theirs === undefined || finite(theirs[figure]).length === 0) return;
    comparisons.push(comparePaired("tessera, logits off", reference, title, tessera[figure], theirs[figure]));
  };
  add(referenceRows.runner, "generated", "generation tokens/s (both greedy, after the prompt)");
  add(referenceRows.runnerTgAfterPrompt, "generated", "generation tokens/s (tg after the prompt)");
  add(referenceRows.runnerTg, "generated", "generation tokens/s (tg from an empty cache)");
  add(referenceRows.llamaBenchAfterPrompt, "generated", "generation tokens/s (tg after the prompt)");
  add(referenceRows.llamaBench, "generated", "generation tokens/s (tg from an empty cache)");
  add(referenceRows.runner, "prompt", "prompt tokens/s");
  add(referenceRows.llamaBench, "prompt", "prompt tokens/s");
  for (const mode of ["top-20", "full"] as const) {
    const captured = series.get(tesseraName(mode));
    if (captured === undefined) continue;
    comparisons.push(
      comparePaired(
        tesseraName(mode),
        "tessera, logits off",
        "generation tokens/s",
        captured.generated,
        tessera.generated,
      ),
    );
  }
  return comparisons;
}

async function nodeLlamaCppRow(options: ThroughputOptions): Promise<ThroughputRow> {
  const name = "node-llama-cpp";
  const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  try {
    const model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
    const context = await model.createContext({
      contextSize: Math.ceil((options.promptTokens + options.generatedTokens + 64) / 256) * 256,
      threads: options.threads,
      batchSize: Math.max(512, options.promptTokens + 64),
      flashAttention: nodeLlamaCppFlashAttention(flashAttentionOf(options)),
    });
    const sequence = context.getSequence();
    const prompt: number[] = [];
    const generated: number[] = [];
    let salt = randomSalt();
    for (let repetition = -1; repetition < options.repetitions; repetition++) {
      options.onProgress?.({ label: `${name}, repetition ${repetition + 2}/${options.repetitions + 1}` });
      await sequence.clearHistory();
      const text = await buildUniquePrompt(
        options.promptTokens,
        salt++,
        async (value) => model.tokenize(value).length,
      );
      const tokens = model.tokenize(text.text, true);
      const started = performance.now();
      let firstAt = 0;
      let count = 0;
      for await (const _token of sequence.evaluate(tokens, { temperature: 0 })) {
        count++;
        if (count === 1) firstAt = performance.now();
        if (count >= options.generatedTokens) break;
      }
      const finished = performance.now();
      if (repetition < 0) continue;
      prompt.push((tokens.length * 1000) / (firstAt - started));
      if (count > 1) generated.push(((count - 1) * 1000) / (finished - firstAt));
    }
    await context.dispose();
    await model.dispose();
    return row(name, "off", prompt, generated);
  } finally {
    await llama.dispose();
  }
}

interface LlamaBenchEntry {
  n_prompt: number;
  n_gen: number;
  n_depth?: number;
  avg_ts: number;
}

/** One llama-bench run's arguments (-r 1): pp and tg from an empty cache, and tg after the prompt's cells. */
export function llamaBenchArgs(options: ThroughputOptions): string[] {
  return [
    ...["-m", options.modelPath, "-t", String(options.threads), "-r", "1"],
    ...["-p", String(options.promptTokens), "-n", String(options.generatedTokens)],
    ...["-d", `0,${options.promptTokens}`, "-o", "json"],
    ...["-fa", flashAttentionOf(options)],
  ];
}

async function runLlamaBench(binary: string, options: ThroughputOptions): Promise<LlamaBenchEntry[]> {
  const args = llamaBenchArgs(options);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"], env: peerEnvironment() });
    trackBenchChild(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`llama-bench exited with ${code}: ${stderr.trim().split("\n").at(-1)}`)),
    );
  });
  return JSON.parse(output) as LlamaBenchEntry[];
}

export async function runThroughputBenchmark(options: ThroughputOptions): Promise<ThroughputResult> {
  const rows: ThroughputRow[] = [];
  const attempt = async (
    name: string,
    modes: ReadonlyArray<ThroughputLogits>,
    work: () => Promise<ThroughputRow[]>,
  ) => {
    try {
      rows.push(...(await work()));
    } catch (error) {
      const note = `failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
      for (const mode of modes) rows.push(row(name, mode, [], [], note));
    }
  };
  let series: ReadonlyMap<string, Series> = new Map();
  const interleaved = options.rows.filter((name) => name !== "node-llama-cpp");
  if (interleaved.length > 0) {
    try {
      const result = await interleavedRows(options);
      rows.push(...result.rows);
      series = result.series;
    } catch (error) {
      const note = `failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
      for (const mode of options.logitsModes) rows.push(row("tessera", mode, [], [], note));
    }
  }
  if (options.rows.includes("node-llama-cpp"))
    await attempt("node-llama-cpp", ["off"], async () => [await nodeLlamaCppRow(options)]);
  return {
    benchmark: "throughput",
    createdAt: new Date().toISOString(),
    machine: machineInfo(),
    model: options.modelPath.split("/").at(-1) ?? options.modelPath,
    settings: {
      threads: options.threads,
      promptTokens: options.promptTokens,
      generatedTokens: options.generatedTokens,
      repetitions: options.repetitions,
      flashAttention: flashAttentionOf(options),
    },
    rows,
    comparisons: throughputComparisons(series),
  };
}
