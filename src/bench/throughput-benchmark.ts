// Prompt processing and generation speed (tokens/s) of tessera with logits off, top-20 and full vectors,
// against node-llama-cpp and llama.cpp's llama-bench on the same GGUF and thread count. Each figure is
// the median and p90 over repetitions; rows that cannot run here say why.
import { spawn } from "node:child_process";
import type { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../core/cblock.js";
import type { LogitsRequest } from "../core/model-options.js";
import { SimpleContext } from "../stdlib/contexts/simple-context.js";
import { type MachineInfo, machineInfo } from "./machine-info.js";
import { findPeerBinary, peerMissingNote } from "./peer-binaries.js";
import { type SampleSummary, summarize } from "./stats.js";
import { buildUniquePrompt } from "./unique-prompts.js";

export type ThroughputLogits = "off" | "top-20" | "full";

export interface ThroughputOptions {
  modelPath: string;
  modelId: string;
  threads: number;
  promptTokens: number;
  generatedTokens: number;
  repetitions: number;
  logitsModes: ReadonlyArray<ThroughputLogits>;
  rows: ReadonlyArray<"tessera" | "node-llama-cpp" | "llama-bench">;
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
  settings: { threads: number; promptTokens: number; generatedTokens: number; repetitions: number };
  rows: ThroughputRow[];
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

const logitsRequest: Record<ThroughputLogits, LogitsRequest> = { off: false, "top-20": 20, full: "full" };

async function tesseraRows(options: ThroughputOptions): Promise<ThroughputRow[]> {
  const { LlamaCppBackend } = await import("../backends/llamacpp/llama-cpp-backend.js");
  const contextSize = Math.ceil((options.promptTokens + options.generatedTokens + 64) / 256) * 256;
  const backend: LlamaCppBackend = await LlamaCppBackend.create({
    model: options.modelPath,
    modelId: options.modelId,
    threads: options.threads,
    contextSize,
    sequences: 1,
    batchSize: Math.max(512, options.promptTokens + 64),
  });
  const rows: ThroughputRow[] = [];
  let salt = Math.floor(Math.random() * 1e6);
  try {
    const countTokens = async (text: string) => backend.model.tokenize(text).length;
    const samples = new Map(
      options.logitsModes.map((mode) => [mode, { prompt: [] as number[], generated: [] as number[] }]),
    );
    // Modes take turns within each repetition, so a busy minute on the machine hits all of them alike.
    // One unmeasured repetition first: page-in of the weights, first allocations.
    for (let repetition = -1; repetition < options.repetitions; repetition++) {
      for (const mode of options.logitsModes) {
        options.onProgress?.({
          label: `tessera, logits ${mode}, repetition ${repetition + 2}/${options.repetitions + 1}`,
        });
        const text = await buildUniquePrompt(options.promptTokens, salt++, countTokens);
        const { thunk } = await backend.generateFromContext(new CBlock(text.text), new SimpleContext(), {
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
        if (repetition < 0 || usage === null || timings === null) continue;
        const target = samples.get(mode)!;
        if (timings.prefillMs) target.prompt.push((usage.promptTokens * 1000) / timings.prefillMs);
        if (timings.decodeMs && usage.completionTokens > 1) {
          target.generated.push(((usage.completionTokens - 1) * 1000) / timings.decodeMs);
        }
      }
    }
    for (const [mode, { prompt, generated }] of samples) rows.push(row("tessera", mode, prompt, generated));
  } finally {
    await backend.dispose();
  }
  return rows;
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
    });
    const sequence = context.getSequence();
    const prompt: number[] = [];
    const generated: number[] = [];
    let salt = Math.floor(Math.random() * 1e6);
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
  samples_ts: number[];
}

async function llamaBenchRow(options: ThroughputOptions): Promise<ThroughputRow> {
  const name = "llama-bench";
  const binary = findPeerBinary("llama-bench");
  if (binary === null) return row(name, "off", [], [], peerMissingNote("llama-bench"));
  options.onProgress?.({ label: "llama-bench" });
  const args = [
    ...["-m", options.modelPath, "-t", String(options.threads), "-r", String(options.repetitions)],
    ...["-p", String(options.promptTokens), "-n", String(options.generatedTokens), "-o", "json"],
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
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
  const entries = JSON.parse(output) as LlamaBenchEntry[];
  const promptEntry = entries.find((entry) => entry.n_prompt > 0 && entry.n_gen === 0);
  const generateEntry = entries.find((entry) => entry.n_gen > 0 && entry.n_prompt === 0);
  return row(name, "off", promptEntry?.samples_ts ?? [], generateEntry?.samples_ts ?? []);
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
  if (options.rows.includes("tessera"))
    await attempt("tessera", options.logitsModes, () => tesseraRows(options));
  if (options.rows.includes("node-llama-cpp"))
    await attempt("node-llama-cpp", ["off"], async () => [await nodeLlamaCppRow(options)]);
  if (options.rows.includes("llama-bench"))
    await attempt("llama-bench", ["off"], async () => [await llamaBenchRow(options)]);
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
    },
    rows,
  };
}
