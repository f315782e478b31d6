// Trains a GGUF with llama.cpp's own trainer (ggml-opt through the native addon) and writes the result
// with its training record. The corpus is tokenized by the model's own tokenizer (a real llama.cpp
// load), cut into rows that start at line starts with BOS first, as every prompt does at inference.
import { readFileSync, rmSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { physicalCoreCount } from "../backends/llamacpp/native-thread-count.js";
import type { GgufFileInfo } from "../gguf/gguf-file-info.js";
import { readGgufFile } from "../gguf/gguf-reader.js";
import { TrainingError } from "./errors/training-error.js";
import { type NativeTrainProgress, type NativeTrainSummary, startNativeTraining } from "./native-trainer.js";
import { lineStarts, tokenRows } from "./token-rows.js";
import { writeTrainedModel } from "./trained-model-writer.js";
import { loadCorpusText, type TrainingCorpus } from "./training-corpus.js";
import { readTrainingRecord, type TrainingRecord, trainingRecordEntries } from "./training-record.js";

export type LearningRateSchedule = "constant" | "linear" | "cosine";

export interface TrainModelOptions {
  /** The GGUF to start from (a preset resolved to its file, or a checkpoint to resume). */
  readonly start: string;
  /** A name for the start in the record (default: the file name). */
  readonly startName?: string;
  readonly output: string;
  readonly corpus: TrainingCorpus;
  /** Tokens per row, a multiple of 256 (llama.cpp pads every context to 256). Default 256. */
  readonly sequenceLength?: number;
  readonly epochs?: number;
  readonly learningRate?: number;
  readonly schedule?: LearningRateSchedule;
  readonly warmupSteps?: number;
  readonly minLearningRate?: number;
  readonly weightDecay?: number;
  /** Default true: the token embeddings train too (llama.cpp's own opt_init leaves them frozen). */
  readonly trainEmbeddings?: boolean;
  /** Default: physical cores. Only 1 thread is guaranteed to write the same bytes for the same seed. */
  readonly threads?: number;
  readonly seed?: number;
  /** Rows per shard: Ctrl-C (the signal) stops at the next shard boundary. Default 32. */
  readonly shardSize?: number;
  /** Stops at the next shard boundary; the checkpoint is still written (record says `stopped`). */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: NativeTrainProgress) => void;
  /** Called once the corpus is cut into rows, before training starts. */
  readonly onPrepared?: (prepared: { trainRows: number; validationRows: number; tokens: number }) => void;
}

export interface TrainModelResult {
  readonly output: string;
  readonly summary: NativeTrainSummary;
  readonly record: TrainingRecord;
}

function tesseraVersion(): string {
  // src/training/ and dist/training/ both sit two levels below the package root.
  try {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return manifest.version ?? "unknown";
  } catch {
    return "unknown";
  }
}

function positiveInteger(name: string, value: number, minimum: number, maximum: number): number {
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new TrainingError(`${name} must be an integer in [${minimum}, ${maximum}], got ${value}`, {
      option: name,
    });
  }
  return value;
}

// llama.cpp writes the trained model into a scratch folder under os.tmpdir(), named after the process, so
// one that died without cleaning up (SIGKILL, a crash) is recognised and removed by the next run.
const scratchPrefix = "tessera-train-scratch-";
const scratchFolders = new Set<string>();

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function sweepScratchFolders(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    // The pid follows the same prefix the folders are made with, so the two cannot drift apart.
    if (!name.startsWith(scratchPrefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(scratchPrefix.length))?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && !processIsAlive(pid)) {
      await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/**
 * Removes the scratch folders of the trainings under way, synchronously: for a process about to end
 * without waiting for llama.cpp's trainer (a second Ctrl-C), whose `finally` blocks will never run.
 */
export function removeTrainingScratchSync(): void {
  for (const folder of scratchFolders) rmSync(folder, { recursive: true, force: true });
  scratchFolders.clear();
}

/** FLT_MIN: ggml-opt takes AdamW's rate as a float and asserts it is > 0 (an abort, not an error). */
const smallestFloat32 = 1.1754943508222875e-38;

/** The smallest rate the schedule gives a step: the warm-up's first step or the decay's floor. */
function smallestLearningRate(
  peak: number,
  floor: number,
  warmupSteps: number,
  schedule: LearningRateSchedule,
): number {
  const firstWarmupStep = warmupSteps > 0 ? peak / warmupSteps : peak;
  return schedule === "constant" ? firstWarmupStep : Math.min(firstWarmupStep, floor);
}

function checkSmallestLearningRate(peak: number, smallest: number): void {
  if (Math.fround(smallest) < smallestFloat32) {
    throw new TrainingError(
      `learningRate ${peak} is too small: the schedule scales it to ${smallest.toPrecision(3)} (the warm-up's first step or the decay's floor, 1/1000 of the peak), ` +
        `below the smallest float32 (${smallestFloat32.toPrecision(3)}) llama.cpp's optimizer takes; use a rate of at least ${(smallestFloat32 * (peak / smallest)).toPrecision(3)}`,
      { option: "learningRate" },
    );
  }
}

/**
 * llama.cpp trains F32 weights only: the backward pass of a quantized or F16 matrix product has no
 * kernel, and ggml aborts the process on the first step (GGML_ASSERT in the scheduler).
 */
function checkTrainableStart(start: GgufFileInfo): void {
  const frozen = start.tensors.find((tensor) => tensor.type !== "F32");
  if (frozen !== undefined) {
    const others = start.tensors.filter((tensor) => tensor.type !== "F32").length - 1;
    throw new TrainingError(
      `the start cannot be trained: ${frozen.name} is ${frozen.type}${others > 0 ? ` (and ${others} more tensors are not F32)` : ""}, and llama.cpp's trainer trains F32 weights only; ` +
        "start from an F32 preset such as tiny-char, or an F32 GGUF",
      { option: "start" },
    );
  }
}

function checkContextLength(start: GgufFileInfo, sequenceLength: number): void {
  const architecture = start.metadataByKey.get("general.architecture");
  const length =
    architecture?.type === "string"
      ? start.metadataByKey.get(`${architecture.value}.context_length`)
      : undefined;
  const contextLength =
    length !== undefined && "value" in length && typeof length.value === "number" ? length.value : undefined;
  if (contextLength !== undefined && sequenceLength > contextLength) {
    throw new TrainingError(
      `sequenceLength ${sequenceLength} is longer than the start's context length (${contextLength} tokens): use a sequenceLength of at most ${contextLength - (contextLength % 256)}`,
      { option: "sequenceLength" },
    );
  }
}

export async function trainModel(options: TrainModelOptions): Promise<TrainModelResult> {
  const sequenceLength = positiveInteger("sequenceLength", options.sequenceLength ?? 256, 256, 8192);
  if (sequenceLength % 256 !== 0) {
    throw new TrainingError(
      `sequenceLength must be a multiple of 256 (llama.cpp pads every context to 256 and trains on whole contexts), got ${sequenceLength}`,
      { option: "sequenceLength" },
    );
  }
  const epochs = positiveInteger("epochs", options.epochs ?? 1, 1, 10000);
  const threads = positiveInteger("threads", options.threads ?? physicalCoreCount(), 1, 512);
  const seed = positiveInteger("seed", options.seed ?? 1, 0, 0xffffffff);
  const shardSize = positiveInteger("shardSize", options.shardSize ?? 32, 1, 1 << 20);
  const warmupSteps = positiveInteger("warmupSteps", options.warmupSteps ?? 50, 0, 1 << 30);
  const learningRate = options.learningRate ?? 1e-3;
  if (!(learningRate > 0 && learningRate <= 1)) {
    throw new TrainingError(`learningRate must be in (0, 1], got ${learningRate}`, {
      option: "learningRate",
    });
  }
  const schedule = options.schedule ?? "cosine";
  // The native trainer's default floor (also for 0): 1/1000 of the peak.
  const minLearningRate =
    options.minLearningRate !== undefined && options.minLearningRate > 0
      ? options.minLearningRate
      : learningRate * 1e-3;
  checkSmallestLearningRate(
    learningRate,
    smallestLearningRate(learningRate, minLearningRate, warmupSteps, schedule),
  );
  const startFile = await readGgufFile(options.start);
  checkTrainableStart(startFile);
  checkContextLength(startFile, sequenceLength);
  const previous = readTrainingRecord(startFile.metadataByKey);

  // Tokenize with the model's own tokenizer (a normal, mapped load), then let it go before training.
  const corpus = await loadCorpusText(options.corpus, epochs, seed);
  const tokenizer = await loadLlamaModel(options.start);
  let train: Int32Array;
  let validation: Int32Array;
  let tokens = 0;
  try {
    const bos = tokenizer.metadata.bos;
    const newline = tokenizer.tokenize("\n", { addSpecial: false });
    if (bos < 0 || newline.length !== 1) {
      throw new TrainingError("the starting model needs a BOS token and a single token for a newline", {
        option: "start",
      });
    }
    const rowsOf = (text: string): Int32Array => {
      const stream = tokenizer.tokenize(text, { addSpecial: false });
      tokens += stream.length;
      return tokenRows(stream, {
        sequenceLength,
        firstToken: bos,
        starts: lineStarts(stream, newline[0]!),
        stride: sequenceLength - 32,
      });
    };
    const passes = corpus.trainingPasses.map(rowsOf);
    train = new Int32Array(passes.reduce((total, rows) => total + rows.length, 0));
    let offset = 0;
    for (const rows of passes) {
      train.set(rows, offset);
      offset += rows.length;
    }
    validation = rowsOf(corpus.validation);
  } finally {
    await tokenizer[Symbol.asyncDispose]();
  }
  const width = sequenceLength + 1;
  if (train.length === 0) {
    throw new TrainingError(
      `the corpus gives no training row of ${sequenceLength} tokens: use a longer corpus or a shorter sequenceLength`,
      {
        option: "corpus",
      },
    );
  }
  if (validation.length === 0 && corpus.heldOut !== undefined) {
    // ggml-opt validates on whole rows only: a held-out part shorter than one row is silently no validation.
    const { lines, totalLines, fraction } = corpus.heldOut;
    const tokensPerLine = Math.max(tokens / totalLines, 1e-9);
    const linesNeeded = Math.ceil(Math.ceil(width / tokensPerLine) / fraction);
    throw new TrainingError(
      `validationFraction ${fraction} holds out ${lines} lines, fewer than one row of ${sequenceLength} tokens, so nothing would be validated: ` +
        `use a corpus of at least ${linesNeeded} lines like these, a larger validationFraction, or a shorter sequenceLength`,
      { option: "validationFraction" },
    );
  }
  options.onPrepared?.({
    trainRows: train.length / width,
    validationRows: validation.length / width,
    tokens,
  });

  await sweepScratchFolders();
  const scratch = await mkdtemp(join(tmpdir(), `${scratchPrefix}${process.pid}-`));
  scratchFolders.add(scratch);
  const trainedPath = join(scratch, "trained.gguf");
  try {
    const training = startNativeTraining(
      {
        modelPath: options.start,
        outputPath: trainedPath,
        sequenceLength,
        train,
        validation,
        shardSize,
        // Built-in tasks put each epoch's own shuffle in the rows: one native pass over all of them.
        epochs: corpus.passesInText ? 1 : epochs,
        threads,
        seed,
        validateFirst: true,
        learningRate,
        warmupSteps,
        schedule,
        ...(options.minLearningRate !== undefined && { minLearningRate: options.minLearningRate }),
        ...(options.weightDecay !== undefined && { weightDecay: options.weightDecay }),
        ...(options.trainEmbeddings !== undefined && { trainEmbeddings: options.trainEmbeddings }),
      },
      options.onProgress,
    );
    const onAbort = (): void => training.stop();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) training.stop();
    let summary: NativeTrainSummary;
    try {
      summary = await training.promise;
    } catch (error) {
      throw new TrainingError(`llama.cpp's trainer failed: ${(error as Error).message}`, { cause: error });
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
    const record: TrainingRecord = {
      corpus: corpus.description,
      start: previous === undefined ? (options.startName ?? options.start.split("/").pop()!) : previous.start,
      steps: summary.steps + (previous?.steps ?? 0),
      epochs,
      tokens: summary.steps * sequenceLength + (previous?.tokens ?? 0),
      sequenceLength,
      learningRate,
      schedule,
      warmupSteps,
      seed,
      threads,
      finalLoss: summary.trainLoss,
      validationLoss: summary.validationLoss,
      // The record reads a missing figure as NaN (a run that validated nothing), which `??` would keep.
      initialValidationLoss:
        previous !== undefined && !Number.isNaN(previous.initialValidationLoss)
          ? previous.initialValidationLoss
          : summary.initialValidationLoss,
      validationAccuracy: summary.validationAccuracy,
      stopped: summary.stopped,
      resumedSteps: previous?.steps ?? 0,
      tesseraVersion: tesseraVersion(),
    };
    await writeTrainedModel({
      startPath: options.start,
      trainedPath,
      outputPath: options.output,
      name: `${options.output
        .split("/")
        .pop()!
        .replace(/\.gguf$/, "")} (trained by tessera)`,
      record: trainingRecordEntries(record),
      ...(corpus.chatTemplate !== undefined && { chatTemplate: corpus.chatTemplate }),
    });
    return { output: options.output, summary, record };
  } finally {
    scratchFolders.delete(scratch);
    await rm(scratch, { recursive: true, force: true });
  }
}
