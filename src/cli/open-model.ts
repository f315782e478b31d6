// Opens the model a command asked for: a file, or a preset generated on first use with a progress bar
// (the 1B and 8B shapes take a while to write), then the llama.cpp backend on it.
import type { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import { resolveModel } from "../gguf/default-model.js";
import { delayedProgressBar } from "./progress-bar.js";

const megabyte = 1024 * 1024;

/** The file path for --model (default: the tiny preset), generating a missing preset with a progress bar. */
export async function resolveModelPath(
  model: string | undefined,
  options: { quiet?: boolean } = {},
): Promise<string> {
  const bar = delayedProgressBar(" writing model {bar} {percentage}% | {written}/{size} MB", {
    enabled: !options.quiet,
  });
  try {
    // A file or a preset; anything else gets resolveModel's typed error listing the presets.
    return await resolveModel(model ?? "tiny", {
      onGenerate: ({ preset, type, path }) => {
        if (!options.quiet) process.stderr.write(`tessera: generating ${preset} (${type}) into ${path}\n`);
      },
      onProgress: ({ bytesWritten, totalBytes }) =>
        bar.update(bytesWritten, totalBytes, {
          written: (bytesWritten / megabyte).toFixed(0),
          size: (totalBytes / megabyte).toFixed(0),
        }),
    });
  } finally {
    bar.stop();
  }
}

export interface OpenBackendOptions {
  model?: string;
  threads?: number;
  contextSize?: number;
  quiet?: boolean;
}

export async function openBackend(options: OpenBackendOptions): Promise<LlamaCppBackend> {
  const path = await resolveModelPath(options.model, { quiet: options.quiet ?? false });
  // Loaded on demand so that `tessera --help` and the other commands start without the native addon.
  const { LlamaCppBackend } = await import("../backends/llamacpp/llama-cpp-backend.js");
  return LlamaCppBackend.create({
    model: path,
    sequences: 1,
    ...(options.model === undefined && { modelId: "tiny" }),
    ...(options.threads !== undefined && { threads: options.threads }),
    ...(options.contextSize !== undefined && { contextSize: options.contextSize }),
  });
}
