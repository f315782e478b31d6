// MBRDRougeLStrategy: Mellea's defaults and its ROUGE-L vote (scripted, control flow), and its budget on the
// tiny model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/index.js";
import {
  MBRDRougeLStrategy,
  minTokenLogprobRequirement,
  rougeLSimilarity,
  SimpleContext,
} from "../../src/stdlib/index.js";
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

describe("rougeLSimilarity matches rouge_score's rougeL F-measure with use_stemmer=True", () => {
  // rouge_score's tokenizer: lower-case, every character outside [a-z0-9] becomes a space, split on
  // whitespace, Porter-stem tokens longer than 3 characters; no tokens on either side scores 0. Expected
  // values worked by hand (F = 2PR / (P + R), P = LCS / |prediction|, R = LCS / |target|):
  const pairs: Array<[string, string, number]> = [
    // [the, cat, ran] vs [the, cat, run]: "cats" (4 chars) stems to "cat", "ran" (3) is kept, "runs" → "run".
    // LCS 2, P = R = 2/3, F = 2/3.
    ["the cats ran", "the cat runs", 2 / 3],
    // [run, quickli] vs [run, quick]: "running" → "run", "quickly" → "quickli"; LCS 1, P = R = 1/2.
    ["running quickly", "runs quick", 1 / 2],
    // Non-ASCII letters are separators: [text] vs [text], F = 1 (a Unicode-aware tokenizer gives 2/3).
    ["日本語 text", "text", 1],
    // [caf, au, lait] vs [cafe, au, lait]: "é" splits "café"; LCS 2, F = 2/3.
    ["Café au lait", "cafe au lait", 2 / 3],
    // [it, s, 3, 14] vs [its, 3, 14]: LCS 2, P = 2/4, R = 2/3, F = 2·(1/2)(2/3) / (7/6) = 4/7.
    ["It's 3.14!", "its 3 14", 4 / 7],
    // [polic, kill, the, gunman] vs [the, gunman, kill, polic]: LCS [the, gunman] = 2, F = 1/2.
    ["police killed the gunman", "the gunman killed police", 1 / 2],
    // No tokens on one side or both: 0 (rouge_score returns Score(0, 0, 0)), also for "" against "".
    ["", "", 0],
    ["", "x", 0],
    ["?!", "...", 0],
  ];
  it.each(pairs)("%j vs %j", (first, second, expected) => {
    expect(rougeLSimilarity(first, second)).toBeCloseTo(expected, 10);
    expect(rougeLSimilarity(second, first)).toBeCloseTo(expected, 10);
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
