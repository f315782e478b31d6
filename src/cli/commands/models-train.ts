// `tessera models train`: trains a preset or GGUF on a built-in task or a text file with llama.cpp's
// own trainer (ggml-opt, through the native addon) and writes a GGUF with its training record.
import { existsSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { physicalCoreCount } from "../../backends/llamacpp/native-thread-count.js";
import { modelsDirectory, resolveModel } from "../../gguf/default-model.js";
import { readGgufFile } from "../../gguf/gguf-reader.js";
import { TrainingError } from "../../training/errors/training-error.js";
import type { NativeTrainProgress } from "../../training/native-trainer.js";
import {
  type LearningRateSchedule,
  removeTrainingScratchSync,
  trainModel,
} from "../../training/train-model.js";
import { trainedModelTemporaryPath } from "../../training/trained-model-writer.js";
import type { TrainingCorpus } from "../../training/training-corpus.js";
import { describeTrainingRecord, readTrainingRecord } from "../../training/training-record.js";
import { InputFileError } from "../errors/input-file-error.js";
import { integerArgument, numberArgument } from "../number-arguments.js";
import { prepareOutputFolder, reportCreatedFolders } from "../output-folder.js";
import { delayedProgressBar } from "../progress-bar.js";
import { registerModelsEvaluateCommand } from "./models-evaluate.js";

const schedules = ["cosine", "linear", "constant"] as const;

function sequenceLengthArgument(text: string): number {
  const value = integerArgument(256, 8192)(text);
  if (value % 256 !== 0) {
    throw new InvalidArgumentError(
      "Expected a multiple of 256 (llama.cpp pads every context to 256 and trains on whole contexts).",
    );
  }
  return value;
}

function scheduleArgument(text: string): LearningRateSchedule {
  if (!(schedules as readonly string[]).includes(text))
    throw new InvalidArgumentError(`Expected one of ${schedules.join(", ")}.`);
  return text as LearningRateSchedule;
}

interface TrainCommandOptions {
  corpus: string;
  out?: string;
  sequenceLength: number;
  epochs: number;
  lr: number;
  schedule: LearningRateSchedule;
  warmup: number;
  validation: number;
  threads?: number;
  seed: number;
  shardSize: number;
  resume?: string;
}

function corpusOf(text: string, validationFraction: number, validationGiven: boolean): TrainingCorpus {
  if (text === "addition" || text === "sorting") {
    if (validationGiven) {
      throw new TrainingError(
        `--validation applies to fortunes and text files only: built-in tasks hold out their own problems (--corpus ${text} validates on its fixed held-out set). Leave out --validation.`,
        { option: "validationFraction" },
      );
    }
    return { kind: text };
  }
  if (text === "fortunes") return { kind: "fortunes", validationFraction };
  const path = resolve(text);
  if (!existsSync(path)) {
    throw new InputFileError(
      path,
      "no such file",
      "Pass --corpus addition, sorting or fortunes (built-in corpora) or the path of a text file.",
    );
  }
  return { kind: "text", path, validationFraction };
}

function percent(value: number): string {
  return Number.isFinite(value) ? (value * 100).toFixed(1) : "-";
}

// The library names its options (learningRate); a CLI user has flags. Messages of trainModel's
// TrainingError name the option as a word, which becomes the flag here.
const flagsByOption: Readonly<Record<string, string>> = {
  sequenceLength: "--sequence-length",
  learningRate: "--lr",
  validationFraction: "--validation",
  warmupSteps: "--warmup",
  shardSize: "--shard-size",
  epochs: "--epochs",
  threads: "--threads",
  seed: "--seed",
};

function inFlags(error: unknown, start: string): unknown {
  if (!TrainingError.isInstance(error) || error.option === undefined) return error;
  let message = error.message;
  for (const [option, flag] of Object.entries(flagsByOption)) {
    message = message.replace(new RegExp(`\\b${option}\\b`, "g"), flag);
  }
  if (error.option === "start") message = `<start> ${start}: ${message}`;
  if (error.option === "corpus" && !message.includes("--corpus")) message = `--corpus: ${message}`;
  return new TrainingError(message, { option: error.option, cause: error });
}

/**
 * A second Ctrl-C (or SIGTERM after a first signal) must not wait for llama.cpp: process.exit joins
 * libuv's thread pool, where llama_opt_epoch runs on until its slice ends (tens of seconds). So the
 * scratch files go synchronously and the process ends by the signal itself, as an unhandled one would.
 */
function quitNow(signal: NodeJS.Signals, output: string): never {
  removeTrainingScratchSync();
  rmSync(trainedModelTemporaryPath(output), { force: true });
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
  // Not reached: the default action of SIGINT and SIGTERM ends the process.
  process.exit(130);
}

async function train(start: string, options: TrainCommandOptions, command: Command): Promise<void> {
  const corpus = corpusOf(
    options.corpus,
    options.validation,
    command.getOptionValueSource("validation") === "cli",
  );
  let startPath: string;
  if (options.resume !== undefined) {
    startPath = resolve(options.resume);
    if (!existsSync(startPath)) {
      throw new InputFileError(
        startPath,
        "no such file",
        "Pass a checkpoint written by tessera models train to --resume.",
      );
    }
    // The weights come from the checkpoint; a <start> that names another model would be silently ignored.
    const started = readTrainingRecord((await readGgufFile(startPath)).metadataByKey)?.start;
    if (started !== undefined && started !== start && resolve(started) !== resolve(start)) {
      throw new TrainingError(
        `<start> ${start} is not where --resume ${options.resume} started (${started}): the weights come from the checkpoint, so pass ${started} as <start>, or leave out --resume to train ${start} from scratch`,
        { option: "start" },
      );
    }
  } else {
    startPath = await resolveModel(start);
  }
  const output = resolve(
    options.out ?? join(modelsDirectory(), `trained-${start.replace(/[^a-zA-Z0-9_-]+/g, "-")}.gguf`),
  );
  reportCreatedFolders(await prepareOutputFolder(output, "--out"), "--out");
  if (options.resume !== undefined) {
    process.stderr.write(
      "Resuming from the checkpoint's weights. llama.cpp cannot save the optimizer's state, so AdamW starts fresh (its moments at zero, the warm-up and schedule run again).\n",
    );
  }
  const bar = delayedProgressBar(
    " {bar} {percentage}% | step {value}/{total} | loss {loss} | acc {accuracy}% | {speed} tok/s | lr {lr} | ETA {eta_formatted}",
    { delayMs: 0 },
  );
  const controller = new AbortController();
  let interrupts = 0;
  // SIGTERM (a service manager, `kill`) is a polite stop too: the checkpoint is kept.
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts > 1) quitNow(signal, output);
    bar.stop();
    process.stderr.write(
      "Stopping at the next shard boundary; the checkpoint will be written (Ctrl-C again to quit without it).\n",
    );
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let lastLine = Number.NEGATIVE_INFINITY;
  const onProgress = (progress: NativeTrainProgress): void => {
    if (progress.kind === "validation") {
      bar.stop();
      process.stderr.write(
        `validation after ${progress.step} steps: loss ${progress.loss.toFixed(3)} nats/token ` +
          `(${(progress.loss / Math.LN2).toFixed(2)} bits), next-token accuracy ${percent(progress.accuracy)}%\n`,
      );
      return;
    }
    // No terminal (a log file, CI): a plain line per shard, at most every 30 s, instead of the bar.
    if (
      progress.kind === "shard" &&
      process.stderr.isTTY !== true &&
      progress.elapsedSeconds - lastLine >= 30
    ) {
      lastLine = progress.elapsedSeconds;
      process.stderr.write(
        `step ${progress.step}/${progress.totalSteps}: loss ${progress.loss.toFixed(3)}, accuracy ${percent(progress.accuracy)}%, ` +
          `${progress.tokensPerSecond.toFixed(0)} tokens/s, ${progress.elapsedSeconds.toFixed(0)} s\n`,
      );
    }
    bar.update(progress.step, progress.totalSteps, {
      loss: Number.isFinite(progress.loss) ? progress.loss.toFixed(3) : "-",
      accuracy: percent(progress.accuracy),
      speed: progress.tokensPerSecond.toFixed(0),
      lr: progress.learningRate.toExponential(1),
    });
  };
  try {
    const result = await trainModel({
      start: startPath,
      startName: options.resume === undefined ? start : startPath,
      output,
      corpus,
      sequenceLength: options.sequenceLength,
      epochs: options.epochs,
      learningRate: options.lr,
      schedule: options.schedule,
      warmupSteps: options.warmup,
      threads: options.threads ?? physicalCoreCount(),
      seed: options.seed,
      shardSize: options.shardSize,
      signal: controller.signal,
      onProgress,
      onPrepared: ({ trainRows, validationRows, tokens }) =>
        process.stderr.write(
          `${tokens} tokens: ${trainRows} training rows, ${validationRows} validation rows\n`,
        ),
    }).catch((error: unknown) => {
      throw inFlags(error, start);
    });
    bar.stop();
    process.stdout.write(
      `${result.output}\n${describeTrainingRecord(result.record).join("\n")}\n` +
        `${result.summary.trainedTensors} tensors trained (${(result.summary.trainedParameters / 1e6).toFixed(2)} M parameters) ` +
        `in ${result.summary.seconds.toFixed(1)} s, ${result.summary.tokensPerSecond.toFixed(0)} tokens/s\n`,
    );
  } finally {
    bar.stop();
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
}

/** Adds `train` and `evaluate` under `tessera models`. */
export function registerModelsTrainCommand(models: Command): void {
  registerModelsEvaluateCommand(models);
  models
    .command("train")
    .description(
      "train a preset or GGUF with llama.cpp's own trainer (ggml-opt) on a built-in task or a text file, and write a GGUF with its training record",
    )
    .argument("<start>", "a preset (e.g. tiny-char) or a GGUF file to start from")
    .requiredOption(
      "--corpus <corpus>",
      '"addition" (2-digit addition, held-out problems disjoint), "sorting" (sort 4 digits, likewise), "fortunes" (Debian\'s fortunes package) or a text file',
    )
    .option("--out <file>", "where to write the trained model (default: models/trained-<start>.gguf)")
    .option(
      "--sequence-length <n>",
      "tokens per training row, a multiple of 256",
      sequenceLengthArgument,
      256,
    )
    .option("--epochs <n>", "passes over the corpus", integerArgument(1, 10000), 1)
    .option(
      "--lr <rate>",
      "peak learning rate of AdamW",
      numberArgument(0, 1, { exclusiveMinimum: true }),
      1e-3,
    )
    .option(
      "--schedule <schedule>",
      `learning-rate schedule after the warm-up: ${schedules.join(", ")}`,
      scheduleArgument,
      "cosine",
    )
    .option("--warmup <steps>", "linear warm-up steps", integerArgument(0), 50)
    .option(
      "--validation <fraction>",
      "share of a text corpus's lines held out for validation",
      numberArgument(0, 0.5, { exclusiveMinimum: true }),
      0.05,
    )
    .option(
      "--threads <n>",
      "CPU threads (default: physical cores); 1 thread is promised to write the same bytes for the same seed (2 did in our runs); more threads than idle cores spin in ggml_barrier and crawl",
      integerArgument(1, 512),
    )
    .option(
      "--seed <n>",
      "seed of the row order (and of the task's shuffles)",
      integerArgument(0, 0xffffffff),
      1,
    )
    .option(
      "--shard-size <rows>",
      "rows per shard; Ctrl-C stops at the next shard boundary",
      integerArgument(1, 1 << 20),
      32,
    )
    .option("--resume <checkpoint>", "continue from a checkpoint's weights (the optimizer starts fresh)")
    .action(train);
}
