// MBRDRougeLStrategy: Mellea's defaults and its ROUGE-L vote (scripted, control flow), and its budget on the
// tiny model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/index.js";
import { MBRDRougeLStrategy, minTokenLogprobRequirement, SimpleContext } from "../../src/stdlib/index.js";
import { scripted } from "../stdlib/helpers.js";

describe("MBRDRougeLStrategy", () => {
  it("draws 8 samples by default and picks the one closest to the others by ROUGE-L", async () => {
    const answers = [
      "the cat sat on the mat",
      "a dog ran in the park",
      "the cat sat on a mat",
      "the cat is on the mat",
      "birds fly south",
      "the cat sat on the mat today",
      "fish swim",
      "the old cat sat on the mat",
    ];
    const backend = scripted((_call, index) => answers[index]!, { capabilities: { parallelSequences: 8 } });
    const strategy = new MBRDRougeLStrategy();
    expect(strategy.n).toBe(8);
    const result = await strategy.sample(new CBlock("q"), new SimpleContext(), backend, []);
    expect(backend.calls).toHaveLength(8);
    expect(result.result.value).toBe("the cat sat on the mat");
  });
});

describe("MBRDRougeLStrategy on the tiny model", () => {
  let backend: LlamaCppBackend;
  beforeAll(async () => {
    backend = await LlamaCppBackend.create({ threads: 1, sequences: 4, contextSize: 256 });
  });
  afterAll(async () => {
    await backend?.dispose();
  });

  it("keeps to n attempts and concurrencyBudget live sequences when pooled", async () => {
    const result = await new MBRDRougeLStrategy({ n: 4, concurrencyBudget: 2 }).sample(
      new CBlock("Say something."),
      new SimpleContext(),
      backend,
      [minTokenLogprobRequirement(Number.NEGATIVE_INFINITY)],
      { modelOptions: { maxNewTokens: 8, temperature: 1, seed: 4 } },
    );
    expect(result.report).toMatchObject({ attempts: 4, completed: 4, concurrency: 2 });
    expect(result.report!.peakLive).toBeLessThanOrEqual(2);
    expect(result.sampleGenerations).toHaveLength(4);
  });
});
