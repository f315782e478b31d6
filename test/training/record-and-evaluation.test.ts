// The training record across a resume, and the text evaluation's sample length (issue 16's review).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleText } from "../../src/training/text-evaluation.js";
import { trainModel } from "../../src/training/train-model.js";
import { writeTrainedModel } from "../../src/training/trained-model-writer.js";
import {
  describeTrainingRecord,
  type TrainingRecord,
  trainingRecordEntries,
} from "../../src/training/training-record.js";
import { linesOf, runCli } from "../cli/support/run-cli.js";
import { writeMicroModel } from "./micro-model.js";

const line = "the quick brown fox jumps over the lazy dog";
let folder: string;
let start: string;
let corpus: string;
/** A checkpoint whose record has no start loss (written by a run that validated nothing). */
let checkpoint: string;
/** That checkpoint's record. */
let baseRecord: TrainingRecord;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "tessera-train-record-"));
  start = await writeMicroModel(folder);
  corpus = join(folder, "line.txt");
  await writeFile(corpus, `${line}\n`.repeat(400));
  checkpoint = join(folder, "checkpoint.gguf");
  baseRecord = {
    corpus: "text file line.txt",
    start: "micro",
    steps: 3,
    epochs: 1,
    tokens: 768,
    sequenceLength: 256,
    learningRate: 1e-3,
    schedule: "cosine",
    warmupSteps: 1,
    seed: 1,
    threads: 1,
    finalLoss: 5,
    validationLoss: Number.NaN,
    initialValidationLoss: Number.NaN,
    validationAccuracy: Number.NaN,
    stopped: false,
    resumedSteps: 0,
    tesseraVersion: "0.0.0",
  };
  await writeTrainedModel({
    startPath: start,
    trainedPath: start,
    outputPath: checkpoint,
    name: "checkpoint",
    record: trainingRecordEntries(baseRecord),
  });
}, 60_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("resuming", () => {
  it("records this run's start loss when the checkpoint's record has none (NaN, not undefined)", async () => {
    const result = await trainModel({
      start: checkpoint,
      output: join(folder, "resumed.gguf"),
      corpus: { kind: "text", path: corpus, validationFraction: 0.05 },
      threads: 1,
      warmupSteps: 1,
      shardSize: 64,
    });
    expect(result.record.resumedSteps).toBe(3);
    expect(result.record.initialValidationLoss).toBe(result.summary.initialValidationLoss);
    expect(Number.isFinite(result.record.initialValidationLoss)).toBe(true);
  }, 120_000);

  it("refuses a <start> that is not the checkpoint's start, instead of ignoring it", async () => {
    const result = await runCli(
      ["models", "train", "tiny", "--resume", checkpoint, "--corpus", corpus, "--threads", "1"],
      { env: { TESSERA_MODELS_DIR: join(folder, "models") } },
    );
    expect(result.code, result.stderr).toBe(1);
    const lines = linesOf(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("<start> tiny");
    expect(lines[0]).toContain("--resume");
    expect(lines[0]).toContain("micro");
  });
});

describe("models evaluate --task text on a model trained on a text file", () => {
  // Final review, F2: it scored the model on Debian's fortunes without a word that they are not its corpus.
  it("says the figures are on Debian's fortunes, not the model's own corpus", async () => {
    const result = await runCli(["models", "evaluate", checkpoint, "--task", "text", "--characters", "20"]);
    expect(result.code, result.stderr).toBe(0);
    expect(linesOf(result.stdout)[0]).toBe(
      "note: this model was trained on a text file line.txt; the figures below are on Debian's fortunes, its own held-out figure is the training record's",
    );
  }, 60_000);
});

describe("models evaluate and a record's corpus (final review)", () => {
  // Writes a checkpoint like the one above whose record describes its corpus as `description`.
  async function checkpointWith(description: string, name: string): Promise<string> {
    const path = join(folder, `${name}.gguf`);
    await writeTrainedModel({
      startPath: start,
      trainedPath: start,
      outputPath: path,
      name,
      record: trainingRecordEntries({ ...baseRecord, corpus: description }),
    });
    return path;
  }

  it("treats a corpus described some other way as text, as before: no sorting score for it", async () => {
    const other = await checkpointWith("my own notes, 12 lines", "other-corpus");
    const result = await runCli(["models", "evaluate", other, "--task", "sorting", "--problems", "2"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /--task sorting does not match this model's training corpus .*use --task text/,
    );
  }, 60_000);

  it("keeps a text file's name whole in the note, brackets included", async () => {
    const bracketed = await checkpointWith(
      "text file a (b).txt (sha256 0123456789ab…, 17200 characters), last 20 lines held out",
      "bracketed",
    );
    const result = await runCli(["models", "evaluate", bracketed, "--task", "text", "--characters", "20"]);
    expect(result.code, result.stderr).toBe(0);
    expect(linesOf(result.stdout)[0]).toMatch(/^note: this model was trained on a text file a \(b\)\.txt; /);
  }, 60_000);
});

describe("the text evaluation's sample", () => {
  it("has as many characters as asked for, not as many tokens", async () => {
    // A random micro model emits byte tokens too, several of which make one character (or none).
    const sample = await sampleText(start, new Set(["the"]), { characters: 120, temperature: 1, seed: 3 });
    expect([...sample.text]).toHaveLength(120);
  }, 60_000);
});

describe("the record's description", () => {
  const record = (corpus: string): TrainingRecord => ({
    corpus,
    start: "tiny-char",
    steps: 10,
    epochs: 2,
    tokens: 2560,
    sequenceLength: 256,
    learningRate: 1e-3,
    schedule: "cosine",
    warmupSteps: 1,
    seed: 1,
    threads: 1,
    finalLoss: 1.5,
    validationLoss: 1.4,
    initialValidationLoss: 5.9,
    validationAccuracy: 0.5,
    stopped: false,
    resumedSteps: 0,
    tesseraVersion: "0.0.0",
  });

  // ggml-opt's result is a running mean that the trainer resets per epoch; a built-in task's epochs are
  // one native pass, so its figure is the whole run's mean. "final" suggested the loss at the end.
  it("says what the training loss is a mean of", () => {
    expect(describeTrainingRecord(record("text file a.txt")).join("\n")).toContain(
      "training loss 1.500 nats/token (mean over the last epoch)",
    );
    expect(describeTrainingRecord(record("sorting: 4 digits")).join("\n")).toContain(
      "training loss 1.500 nats/token (mean over the whole run)",
    );
  });
});
