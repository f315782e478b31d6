// Starts and options llama.cpp's trainer cannot use are refused before any training, with an error that
// names the option (issue 16's review): each of these used to abort the process inside ggml
// (GGML_ASSERT), run with a sequence the model cannot hold, or train silently without validation.
import { execFile } from "node:child_process";
import { readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrainingError } from "../../src/training/errors/training-error.js";
import { type TrainModelOptions, trainModel } from "../../src/training/train-model.js";
import { MICRO_LINE, writeMicroModel, writeMicroTrainingFolder } from "./micro-model.js";

const line = MICRO_LINE;
let folder: string;
let start: string;
let corpus: string;

beforeAll(async () => {
  ({ folder, start, corpus } = await writeMicroTrainingFolder("tessera-train-refusals-"));
}, 60_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

function options(overrides: Partial<TrainModelOptions>): TrainModelOptions {
  return {
    start,
    output: join(folder, "out.gguf"),
    corpus: { kind: "text", path: corpus, validationFraction: 0.05 },
    threads: 1,
    warmupSteps: 5,
    shardSize: 4,
    ...overrides,
  };
}

async function refusal(overrides: Partial<TrainModelOptions>): Promise<TrainingError> {
  const error = await trainModel(options(overrides)).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(TrainingError.isInstance(error), String(error)).toBe(true);
  return error as TrainingError;
}

describe("trainModel refuses", () => {
  it("a learning rate whose warm-up or decay falls below the smallest float32 (ggml-opt asserts alpha > 0)", async () => {
    const tiny = await refusal({ learningRate: 1e-46 });
    expect(tiny.option).toBe("learningRate");
    expect(tiny.message).toMatch(/^learningRate/);
    // 1e-40 is a float32 (subnormal), but the warm-up's first step (÷ 5) and the cosine floor (× 1e-3)
    // are not.
    const scaled = await refusal({ learningRate: 1e-40 });
    expect(scaled.option).toBe("learningRate");
    expect(scaled.message).toContain("1e-40");
  });

  it("a start whose weights are not F32, naming the tensor and its type", async () => {
    const f16 = await writeMicroModel(folder, 1, "F16");
    const error = await refusal({ start: f16 });
    expect(error.option).toBe("start");
    expect(error.message).toMatch(/token_embd\.weight is F16/);
    expect(error.message).toContain("tiny-char");
  });

  it("a sequence length beyond the model's context length", async () => {
    const error = await refusal({ sequenceLength: 768 });
    expect(error.option).toBe("sequenceLength");
    expect(error.message).toContain("768");
    expect(error.message).toContain("512");
  });

  it("a validation split that holds no whole row, saying how long the corpus must be", async () => {
    const short = join(folder, "short.txt");
    // 100 lines: 5 held out (225 tokens), less than one row of 257.
    await writeFile(short, `${line}\n`.repeat(100));
    const error = await refusal({ corpus: { kind: "text", path: short, validationFraction: 0.05 } });
    expect(error.option).toBe("validationFraction");
    expect(error.message).toMatch(/at least \d+ lines/);
  });

  it("a corpus that is not UTF-8", async () => {
    const latin1 = join(folder, "latin1.txt");
    await writeFile(latin1, Buffer.concat([Buffer.from(`${line}\n`.repeat(400)), Buffer.from([0xe9, 0x0a])]));
    const error = await refusal({ corpus: { kind: "text", path: latin1, validationFraction: 0.05 } });
    expect(error.option).toBe("corpus");
    expect(error.message).toContain("UTF-8");
  });
});

describe("a refused run", () => {
  it("leaves nothing in the output folder", async () => {
    const names = await readdir(folder);
    expect(names.filter((name) => name.startsWith(".tmp"))).toEqual([]);
    expect(names).not.toContain("out.gguf");
  });
});

describe("the native trainer", () => {
  // The last guard under the TypeScript check: a rate that rounds to 0 as a float32 trains at the
  // smallest positive float instead of failing ggml-opt's assertion (which aborts the whole process,
  // so it runs in a child).
  it("clamps a learning rate that rounds to zero instead of aborting", async () => {
    const output = join(folder, "native.gguf");
    const script = `
      import { startNativeTraining } from ${JSON.stringify(join(process.cwd(), "dist/training/native-trainer.js"))};
      const train = new Int32Array(257 * 2).map((_, i) => (i % 257 === 0 ? 1 : 3 + (i % 40)));
      const training = startNativeTraining({ modelPath: ${JSON.stringify(start)}, outputPath: ${JSON.stringify(output)},
        sequenceLength: 256, train, shardSize: 1, epochs: 1, threads: 1, seed: 1, learningRate: 1e-46, warmupSteps: 2 });
      const summary = await training.promise;
      console.log(JSON.stringify({ steps: summary.steps }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
      timeout: 60_000,
    });
    expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ steps: 2 });
  }, 90_000);
});
