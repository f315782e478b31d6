// Opens the model a command asked for: a file, or a preset generated on first use with a progress bar
// (the 1B and 8B shapes take a while to write), then the llama.cpp backend on it.

import { existsSync } from "node:fs";
import type { FlashAttention } from "../backends/llamacpp/addon-types.js";
import type { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import { type PresetSynthesis, resolveModel } from "../gguf/default-model.js";
import { readGgufFile } from "../gguf/gguf-reader.js";
import { isModelPresetName, modelPresets, presetHasRandomWeights } from "../gguf/model-presets.js";
import { trainingRecordPrefix } from "../training/training-record.js";
import { defaultCliModel } from "./default-models.js";
import { ModelWriteInterruptedError } from "./errors/model-write-interrupted-error.js";
import { delayedProgressBar } from "./progress-bar.js";

// Sizes in MiB (2^20 bytes), labelled so.
const mebibyte = 1024 * 1024;

let randomWeightsNoticeShown = false;

/**
 * True when the GGUF file is one tessera generated with random weights: the synthesizer records its
 * seed (`tessera.synthetic.seed`), and training adds a `tessera.training.*` record. A file that cannot
 * be read gets no notice; loading it reports what is wrong.
 */
async function fileHasRandomWeights(path: string): Promise<boolean> {
  const info = await readGgufFile(path).catch(() => undefined);
  if (info === undefined || !info.metadataByKey.has("tessera.synthetic.seed")) return false;
  return !info.metadata.some((entry) => entry.key.startsWith(trainingRecordPrefix));
}

/**
 * Says once, on stderr, that a random-weight model writes noise, and how to run a real model: a new
 * user's first `tessera run` uses the tiny preset, and its multilingual gibberish looks like a bug.
 * A preset marked as trained, or a file that is not a random-weight model tessera generated, gets no
 * such line.
 */
async function noticeRandomWeights(model: string): Promise<void> {
  if (randomWeightsNoticeShown) return;
  let name: string;
  if (existsSync(model)) {
    if (!(await fileHasRandomWeights(model))) return;
    name = model;
  } else {
    name = model.split(":")[0] ?? "";
    if (!isModelPresetName(name) || !presetHasRandomWeights(modelPresets[name])) return;
  }
  randomWeightsNoticeShown = true;
  process.stderr.write(
    `tessera: note: ${name} has random weights (a test and benchmark model), so its output is noise; ` +
      "to see real text, pass a trained GGUF model with --model path.gguf\n",
  );
}

export interface ResolveModelPathOptions {
  /** No "generating …" line or progress bar (the notice below still goes to stderr). */
  quiet?: boolean;
  /** Say that a random-weight preset's output is noise (default true; speed benchmarks turn it off). */
  randomWeightsNotice?: boolean;
}

/** The file path for --model (default: the tiny-text preset), generating a missing preset with a progress bar. */
export async function resolveModelPath(
  model: string | undefined,
  options: ResolveModelPathOptions = {},
): Promise<string> {
  const bar = delayedProgressBar(" writing model {bar} {percentage}% | {written}/{size} MiB", {
    enabled: !options.quiet,
  });
  // Ctrl-C while a preset is written stops the write (which removes the partial file) and says so,
  // rather than letting the default handler kill the process with the file half written.
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once("SIGINT", onSigint);
  let synthesis: PresetSynthesis | undefined;
  try {
    // A file or a preset; anything else gets resolveModel's typed error listing the presets.
    const path = await resolveModel(model ?? defaultCliModel, {
      signal: interrupt.signal,
      onGenerate: (started) => {
        synthesis = started;
        const { preset, type, path } = started;
        if (!options.quiet) process.stderr.write(`tessera: generating ${preset} (${type}) into ${path}\n`);
      },
      onProgress: ({ bytesWritten, totalBytes }) =>
        bar.update(bytesWritten, totalBytes, {
          written: (bytesWritten / mebibyte).toFixed(0),
          size: (totalBytes / mebibyte).toFixed(0),
        }),
    });
    if (options.randomWeightsNotice ?? true) await noticeRandomWeights(model ?? defaultCliModel);
    return path;
  } catch (error) {
    if (interrupt.signal.aborted && synthesis !== undefined) {
      throw new ModelWriteInterruptedError(`${synthesis.preset} (${synthesis.type})`);
    }
    throw error;
  } finally {
    process.removeListener("SIGINT", onSigint);
    bar.stop();
  }
}

export interface OpenBackendOptions {
  model?: string;
  threads?: number;
  contextSize?: number;
  flashAttn?: FlashAttention;
  hugePages?: boolean;
  quiet?: boolean;
}

export async function openBackend(options: OpenBackendOptions): Promise<LlamaCppBackend> {
  const path = await resolveModelPath(options.model, { quiet: options.quiet ?? false });
  // Loaded on demand so that `tessera --help` and the other commands start without the native addon.
  const { LlamaCppBackend } = await import("../backends/llamacpp/llama-cpp-backend.js");
  return LlamaCppBackend.create({
    model: path,
    sequences: 1,
    ...(options.model === undefined && { modelId: defaultCliModel }),
    ...(options.threads !== undefined && { threads: options.threads }),
    ...(options.contextSize !== undefined && { contextSize: options.contextSize }),
    ...(options.flashAttn !== undefined && { flashAttention: options.flashAttn }),
    ...(options.hugePages === false && { hugePages: false }),
  });
}
