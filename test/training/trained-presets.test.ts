// The committed trained presets: they load in llama.cpp, their metadata say how they were made, and
// tiny-arith's greedy accuracy on a fixed held-out set (of its task, sorting) stays within ±3 points of the figure
// docs/models.md reports (a change to the trainer, the tokenizer or the sampler that moves it fails here).
import { describe, expect, it } from "vitest";
import { loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveModel } from "../../src/gguf/default-model.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { trainedPresetPath, trainedPresets } from "../../src/gguf/trained-presets.js";
import { evaluateAddition } from "../../src/training/addition-evaluation.js";
import { sortingSplit } from "../../src/training/sorting-task.js";
import { rawPromptChatTemplate } from "../../src/training/training-corpus.js";
import { readTrainingRecord } from "../../src/training/training-record.js";

/** docs/models.md, "Training": greedy exact match on the first 200 held-out problems. */
const documentedGreedyAccuracy = 93.0;

describe.each(Object.values(trainedPresets))("the trained preset $name", (preset) => {
  it("resolves to its committed file and loads in llama.cpp", async () => {
    const path = await resolveModel(preset.name);
    expect(path).toBe(trainedPresetPath(preset.name));
    const model = await loadLlamaModel(path);
    expect(model.metadata.vocabSize).toBe(354);
    await model[Symbol.asyncDispose]();
  });

  it("says in its metadata how it was made", async () => {
    const record = readTrainingRecord((await readGgufFile(trainedPresetPath(preset.name))).metadataByKey);
    expect(record).toBeDefined();
    expect(record!.corpus).toContain(preset.task === "text" ? "fortunes" : preset.task);
    expect(record!.steps).toBeGreaterThan(100);
    // The record matches the regenerating command: its thread count and epochs.
    expect(record!.threads).toBe(Number(/--threads (\d+)/.exec(preset.command)?.[1]));
    expect(record!.epochs).toBe(Number(/--epochs (\d+)/.exec(preset.command)?.[1]));
    // The seed of the run that wrote the file: the last --seed of the regenerating command.
    const seeds = [...preset.command.matchAll(/--seed (\d+)/g)].map((match) => Number(match[1]));
    expect(record!.seed).toBe(seeds.at(-1));
    expect(record!.stopped).toBe(false);
    expect(record!.tesseraVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(record!.validationLoss).toBeLessThan(record!.initialValidationLoss);
  });
});

describe("tiny-arith", () => {
  it("renders a chat prompt as the raw task prompt (BOS, then the user's text), as it was trained", async () => {
    const metadata = (await readGgufFile(trainedPresetPath("tiny-arith"))).metadataByKey;
    expect(metadata.get("tokenizer.chat_template")).toEqual({ type: "string", value: rawPromptChatTemplate });
  });

  it("keeps its documented greedy accuracy on the fixed held-out set (±3 points)", async () => {
    const problems = sortingSplit().heldOut.slice(0, 200);
    const result = await evaluateAddition(trainedPresetPath("tiny-arith"), problems, { temperature: 0 });
    expect(Math.abs(result.accuracy * 100 - documentedGreedyAccuracy)).toBeLessThanOrEqual(3);
  }, 120_000);
});
