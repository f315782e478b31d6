// A seconds-long training run through llama.cpp's own trainer on a micro model: it must learn one line
// by heart (the written GGUF, loaded back, regenerates the line greedily from its first characters),
// record how it was made, and write the same bytes for the same seed on one thread.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { type TrainModelResult, trainModel } from "../../src/training/train-model.js";
import { readTrainingRecord } from "../../src/training/training-record.js";
import { writeMicroModel } from "./micro-model.js";

const line = "the quick brown fox jumps over the lazy dog";
let folder: string;
let start: string;
let corpus: string;
let first: TrainModelResult;

async function trainOnce(output: string): Promise<TrainModelResult> {
  return trainModel({
    start,
    output,
    corpus: { kind: "text", path: corpus, validationFraction: 0.05 },
    sequenceLength: 256,
    epochs: 4,
    learningRate: 3e-3,
    warmupSteps: 5,
    threads: 1,
    seed: 3,
    shardSize: 8,
  });
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "tessera-train-"));
  start = await writeMicroModel(folder);
  corpus = join(folder, "line.txt");
  await writeFile(corpus, `${`${line}\n`.repeat(400)}`);
  first = await trainOnce(join(folder, "first.gguf"));
}, 300_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("training a micro model on one line", () => {
  it("regenerates the line greedily from its first characters", async () => {
    const model = await loadLlamaModel(first.output);
    try {
      const context = await model.createContext({ contextSize: 256, threads: 1 });
      const stream = context.generate(model.tokenize("the qu"), {
        temperature: 0,
        maxTokens: line.length - 6,
      });
      const result = await stream.collect();
      expect(`the qu${result.text}`).toBe(line);
      context.dispose();
    } finally {
      await model[Symbol.asyncDispose]();
    }
  }, 120_000);

  it("trains the token embeddings (llama.cpp's opt_init leaves them out), but not K and V", async () => {
    const tensorsOf = async (path: string): Promise<Map<string, Buffer>> => {
      const [info, bytes] = await Promise.all([readGgufFile(path), readFile(path)]);
      return new Map(
        info.tensors.map((tensor) => [
          tensor.name,
          bytes.subarray(tensor.fileOffset, tensor.fileOffset + tensor.byteSize),
        ]),
      );
    };
    const [before, after] = await Promise.all([tensorsOf(start), tensorsOf(first.output)]);
    const changed = (name: string): boolean => !before.get(name)!.equals(after.get(name)!);
    expect(changed("token_embd.weight")).toBe(true);
    expect(changed("output.weight")).toBe(true);
    expect(changed("blk.0.attn_q.weight")).toBe(true);
    // Attention reads K and V back from the KV cache, and the copy into it (SET_ROWS) has no backward
    // pass, so these never move (docs/models.md, "Why training stalled"). A change here means llama.cpp
    // now trains them: update the docs and the trainable start.
    expect(changed("blk.0.attn_k.weight")).toBe(false);
    expect(changed("blk.0.attn_v.weight")).toBe(false);
    // 1 layer: 9 weights (2 norms, q, k, v, o, gate, up, down), the output norm, output and embeddings
    // (K and V are marked as parameters; they only never get a gradient).
    expect(first.summary.trainedTensors).toBe(12);
  });

  it("learns: validation loss far below the random start", () => {
    expect(first.summary.initialValidationLoss).toBeGreaterThan(4);
    expect(first.summary.validationLoss).toBeLessThan(0.5);
  });

  it("keeps a training record in the GGUF metadata", async () => {
    const record = readTrainingRecord((await readGgufFile(first.output)).metadataByKey);
    expect(record).toMatchObject({
      seed: 3,
      threads: 1,
      sequenceLength: 256,
      stopped: false,
      resumedSteps: 0,
    });
    expect(record?.corpus).toContain("line.txt");
    expect(record?.steps).toBe(first.summary.steps);
    expect(record?.tesseraVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(record?.finalLoss).toBeCloseTo(first.summary.trainLoss, 4);
  });

  it("writes the same bytes for the same seed on one thread", async () => {
    // Same file name (it becomes general.name), another folder.
    await mkdir(join(folder, "again"));
    const second = await trainOnce(join(folder, "again", "first.gguf"));
    const [a, b] = await Promise.all([readFile(first.output), readFile(second.output)]);
    expect(a.equals(b)).toBe(true);
  }, 300_000);

  it("stops at a shard boundary when aborted, keeps that checkpoint, and resumes from it", async () => {
    const controller = new AbortController();
    const stopped = await trainModel({
      start,
      output: join(folder, "stopped.gguf"),
      corpus: { kind: "text", path: corpus, validationFraction: 0.05 },
      epochs: 4,
      learningRate: 3e-3,
      threads: 1,
      seed: 3,
      shardSize: 8,
      onProgress: (progress) => {
        if (progress.kind === "shard") controller.abort();
      },
      signal: controller.signal,
    });
    expect(stopped.summary.stopped).toBe(true);
    expect(stopped.summary.steps % 8).toBe(0);
    expect(stopped.summary.steps).toBeLessThan(first.summary.steps);
    const record = readTrainingRecord((await readGgufFile(stopped.output)).metadataByKey);
    expect(record).toMatchObject({ stopped: true, steps: stopped.summary.steps });

    const resumed = await trainModel({
      start: stopped.output,
      output: join(folder, "resumed.gguf"),
      corpus: { kind: "text", path: corpus, validationFraction: 0.05 },
      epochs: 1,
      learningRate: 3e-3,
      threads: 1,
      seed: 3,
      shardSize: 8,
    });
    const resumedRecord = readTrainingRecord((await readGgufFile(resumed.output)).metadataByKey);
    expect(resumedRecord).toMatchObject({ stopped: false, resumedSteps: stopped.summary.steps });
    expect(resumedRecord?.steps).toBe(stopped.summary.steps + resumed.summary.steps);
    expect(resumedRecord?.start).toBe(record?.start);
  }, 300_000);
});
