// Defect 10 of the native hardening (native half): only the raw row was checked for NaN and infinity,
// so a temperature of 1e-40 turned finite logits into infinities and sampled garbage with NaN
// log-probabilities, silently. The TypeScript layer maps such temperatures to greedy; the addon itself
// now fails any generation whose processed row is not finite, on both sampling paths.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  NativeContext,
  NativeGenerateOptions,
  NativeModel,
} from "../../src/backends/llamacpp/addon-types.js";
import { createRawContext, loadRawTinyModel } from "./tiny-model.js";

describe("a processed row that is not finite", () => {
  let model: NativeModel;
  let context: NativeContext;
  beforeAll(async () => {
    model = await loadRawTinyModel();
    context = await createRawContext(model);
  });
  afterAll(() => {
    context.dispose();
    model.dispose();
  });

  async function run(sampler: Partial<NativeGenerateOptions>) {
    const generation = context.generate({
      tokens: model.tokenize("Once upon a time", true, false),
      greedy: false,
      seed: 1,
      maxTokens: 8,
      ignoreEos: true,
      promptLogprobs: false,
      reusePrefix: false,
      queueCapacity: 8,
      ...sampler,
    });
    const logprobs: number[] = [];
    for (;;) {
      const batch = await generation.pull(8);
      logprobs.push(...batch.logprobs);
      if (batch.done) break;
    }
    return { stats: generation.getStats(), logprobs };
  }

  for (const [path, sampler] of [
    ["the dense draw", { temperature: 1e-40 }],
    ["the sampler chain", { temperature: 1e-40, topK: 40 }],
  ] as const) {
    it(`fails with ERR_NON_FINITE_LOGITS on ${path}, never sampling from it`, async () => {
      const { stats, logprobs } = await run(sampler);
      expect(stats.finishReason).toBe("error");
      expect(stats.errorCode).toBe("ERR_NON_FINITE_LOGITS");
      expect(stats.errorMessage).toMatch(/processed logits became NaN or infinite/);
      expect(logprobs.every(Number.isFinite)).toBe(true);
    });
  }

  it("still samples with a small but safe temperature", async () => {
    const { stats, logprobs } = await run({ temperature: 0.05 });
    expect(stats.finishReason).toBe("length");
    expect(logprobs).toHaveLength(8);
    expect(logprobs.every(Number.isFinite)).toBe(true);
  });
});
