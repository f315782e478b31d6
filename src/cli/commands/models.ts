// `tessera models`: make synthetic GGUF models from presets, and inspect any GGUF file.
import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import {
  defaultModelSeed,
  generatePresetModel,
  modelsDirectory,
  presetFileName,
} from "../../gguf/default-model.js";
import { GgufModelMismatchError } from "../../gguf/errors/gguf-model-mismatch-error.js";
import type { GgufFileInfo } from "../../gguf/gguf-file-info.js";
import { readGgufFile } from "../../gguf/gguf-reader.js";
import { type GgufArrayItem, type GgufValue, ggufPlainValue } from "../../gguf/gguf-value.js";
import { validateLlamaModel } from "../../gguf/llama-model-validation.js";
import { isModelPresetName, modelPresetNames, modelPresets } from "../../gguf/model-presets.js";
import {
  type WritableTensorType,
  writableTensorTypeNamed,
  writableTensorTypes,
} from "../../gguf/tensor-encoding.js";
import { describeTrainingRecord, readTrainingRecord } from "../../training/training-record.js";
import { InputFileError } from "../errors/input-file-error.js";
import { ModelWriteInterruptedError } from "../errors/model-write-interrupted-error.js";
import { OutputWriteError } from "../errors/output-write-error.js";
import { integerArgument } from "../number-arguments.js";
import { prepareOutputFolder, reportCreatedFolders } from "../output-folder.js";
import { delayedProgressBar } from "../progress-bar.js";
import { registerModelsTrainCommand } from "./models-train.js";

// Sizes are printed in MiB (2^20 bytes), and labelled so.
const mebibyte = 1024 * 1024;

function parseType(text: string): WritableTensorType {
  const type = writableTensorTypeNamed(text);
  if (type === undefined) {
    throw new InvalidArgumentError(`Expected one of ${writableTensorTypes.join(", ").toLowerCase()}.`);
  }
  return type;
}

interface MakeOptions {
  type?: WritableTensorType;
  out?: string;
  seed: number;
}

async function make(preset: string, options: MakeOptions): Promise<void> {
  if (!isModelPresetName(preset)) {
    throw new InvalidArgumentError(`Unknown preset "${preset}". Presets: ${modelPresetNames.join(", ")}.`);
  }
  const type = options.type ?? modelPresets[preset].defaultType;
  const path = resolve(options.out ?? join(modelsDirectory(), presetFileName(preset, type, options.seed)));
  reportCreatedFolders(await prepareOutputFolder(path, "--out"), "--out");
  // Shown from the first update (delay 0): writing the model is all this command does.
  const bar = delayedProgressBar(
    " {bar} {percentage}% | {written}/{size} MiB | {speed} MiB/s | ETA {eta_formatted}",
    { delayMs: 0 },
  );
  const started = performance.now();
  const controller = new AbortController();
  const onSignal = (): void => controller.abort(new ModelWriteInterruptedError(`${preset} (${type})`));
  process.once("SIGINT", onSignal);
  try {
    const result = await generatePresetModel(preset, path, {
      type,
      seed: options.seed,
      signal: controller.signal,
      onProgress: ({ bytesWritten, totalBytes }) => {
        const seconds = (performance.now() - started) / 1000;
        const payload = {
          written: (bytesWritten / mebibyte).toFixed(1),
          size: (totalBytes / mebibyte).toFixed(1),
          speed: (bytesWritten / mebibyte / Math.max(seconds, 1e-3)).toFixed(1),
        };
        bar.update(bytesWritten, totalBytes, payload);
      },
    }).catch((error: unknown) => {
      // A failed write (disk full, a file system that refuses it) is the output's problem: say so.
      if (typeof (error as NodeJS.ErrnoException).code === "string") throw new OutputWriteError(path, error);
      throw error;
    });
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(
      `${path}\n${preset} ${type.toLowerCase()} seed ${options.seed}: ${(result.totalBytes / mebibyte).toFixed(1)} MiB ` +
        `in ${seconds.toFixed(1)} s (${(result.totalBytes / mebibyte / seconds).toFixed(1)} MiB/s)\n`,
    );
  } finally {
    bar.stop();
    process.removeListener("SIGINT", onSignal);
  }
}

function describeValue(value: GgufValue | GgufArrayItem, limit = 80): string {
  if (typeof value === "object" && value.type === "array") {
    const shown: string[] = [];
    let length = 0;
    for (const item of value.values) {
      const text = describeValue(item, 30);
      if (length + text.length > limit) break;
      shown.push(text);
      length += text.length + 2;
    }
    const more = value.values.length > shown.length ? ", …" : "";
    return `[${value.itemType} × ${value.values.length}] ${shown.join(", ")}${more}`;
  }
  const plain = ggufPlainValue(value);
  const text = typeof plain === "string" ? JSON.stringify(plain) : String(plain);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function consistencyProblems(info: GgufFileInfo): readonly string[] | undefined {
  const architecture = info.metadataByKey.get("general.architecture");
  if (architecture?.type !== "string" || architecture.value !== "llama") return undefined;
  try {
    validateLlamaModel(info);
    return [];
  } catch (error) {
    if (GgufModelMismatchError.isInstance(error)) return error.problems;
    throw error;
  }
}

function toJson(info: GgufFileInfo, path: string): string {
  return JSON.stringify(
    {
      path,
      version: info.version,
      fileSize: info.fileSize,
      alignment: info.alignment,
      tensorDataOffset: info.tensorDataOffset,
      metadata: info.metadata.map(({ key, value }) => ({
        key,
        type: value.type === "array" ? `array<${value.itemType}>` : value.type,
        value: ggufPlainValue(value),
      })),
      tensors: info.tensors,
      llamaProblems: consistencyProblems(info) ?? null,
    },
    // Compact: a 128k-token vocabulary indented one item per line would be tens of MB.
    (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value),
  );
}

function toText(info: GgufFileInfo, path: string): string {
  const parameters = info.tensors.reduce((total, tensor) => total + tensor.elementCount, 0);
  const problems = consistencyProblems(info);
  const lines = [
    `${path}`,
    `GGUF v${info.version}, ${(info.fileSize / mebibyte).toFixed(1)} MiB, ${info.metadata.length} key/values, ` +
      `${info.tensors.length} tensors, ${(parameters / 1e6).toFixed(2)} M parameters, alignment ${info.alignment}, ` +
      `data at byte ${info.tensorDataOffset}`,
  ];
  if (problems !== undefined) {
    lines.push(
      problems.length === 0 ? "llama model: consistent" : `llama model: INCONSISTENT: ${problems.join("; ")}`,
    );
  }
  const training = readTrainingRecord(info.metadataByKey);
  if (training !== undefined)
    lines.push(...describeTrainingRecord(training).map((line) => `training: ${line}`));
  lines.push(
    "",
    table([
      ["key", "type", "value"],
      ...info.metadata.map(({ key, value }) => [key, value.type, describeValue(value)]),
    ]),
  );
  if (info.tensors.length > 0) {
    lines.push(
      "",
      table([
        ["tensor", "type", "shape", "bytes", "offset"],
        ...info.tensors.map((tensor) => [
          tensor.name,
          tensor.type,
          tensor.shape.join(" × "),
          String(tensor.byteSize),
          String(tensor.fileOffset),
        ]),
      ]),
    );
  }
  return `${lines.join("\n")}\n`;
}

async function info(file: string, options: { json?: boolean }): Promise<void> {
  const path = resolve(file);
  // A clear line before anything else, naming the argument rather than the failed system call.
  const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
    const problem = error.code === "ENOENT" || error.code === "ENOTDIR" ? "no such file" : error.message;
    throw new InputFileError(
      path,
      problem,
      "Pass the path of a GGUF file: tessera models info <file>.",
      error,
    );
  });
  if (!found.isFile()) {
    throw new InputFileError(
      path,
      "it is not a file",
      "Pass the path of a GGUF file: tessera models info <file>.",
    );
  }
  const parsed = await readGgufFile(path);
  process.stdout.write(options.json === true ? `${toJson(parsed, path)}\n` : toText(parsed, path));
}

export function registerModelsCommand(program: Command): void {
  const models = program.command("models").description("make synthetic GGUF models and inspect GGUF files");
  models
    .command("make")
    .description(
      `write a synthetic model with seeded random weights and a real tokenizer (presets: ${modelPresetNames.join(", ")})`,
    )
    .argument("<preset>", "the model shape")
    .option(
      "--type <type>",
      `tensor type: ${writableTensorTypes.join(", ").toLowerCase()} (default: the preset's)`,
      parseType,
    )
    .option("--out <file>", "where to write it (default: models/<preset>-<type>.gguf)")
    .option(
      "--seed <n>",
      "random seed; the same seed writes the same bytes",
      integerArgument(0, 0xffffffff),
      defaultModelSeed,
    )
    .action(make);
  models
    .command("info")
    .description("print a GGUF file's metadata and tensor table")
    .argument("<file>", "a GGUF file")
    .option("--json", "machine-readable JSON (full arrays)")
    .action(info);
  registerModelsTrainCommand(models);
  models
    .command("list")
    .description("list the presets")
    .action(() => {
      const rows = Object.values(modelPresets).map((preset) => [
        preset.name,
        preset.defaultType.toLowerCase(),
        preset.description,
      ]);
      process.stdout.write(`${table([["preset", "default type", "shape"], ...rows])}\n`);
    });
}
