// An option getter (or valueOf) is the caller's JavaScript, and it runs while the addon reads the options.
// One that disposes the context or its model must not leave a job submitted to a stopped engine (its pull
// never settled: the test below hung before the fix), nor build samplers on a freed vocabulary: generate
// refuses with ERR_DISPOSED, as it does for a context disposed before the call.
import { describe, expect, it } from "vitest";
import { createRawContext, loadRawTinyModel } from "./tiny-model.js";

// What the raw generate requires besides the tokens and the getter under test.
const required = { seed: 0, ignoreEos: true, promptLogprobs: false, reusePrefix: false, queueCapacity: 4 };

describe("disposal from inside an option getter", () => {
  it("refuses a generate whose maxTokens getter disposed the context", async () => {
    const model = await loadRawTinyModel();
    const context = await createRawContext(model);
    const tokens = model.tokenize("Hello there", true, false);
    let caught: unknown;
    try {
      const job = context.generate({
        ...required,
        tokens,
        greedy: true,
        get maxTokens() {
          context.dispose();
          return 4;
        },
      });
      // Before the fix generate returned a job; its pull never settled.
      await Promise.race([
        job.pull(4),
        new Promise((_, reject) => setTimeout(() => reject(new Error("the pull did not settle")), 3000)),
      ]);
    } catch (error) {
      caught = error;
    }
    expect((caught as { code?: string }).code).toBe("ERR_DISPOSED");
    model.dispose();
  });

  it("refuses a generate whose grammar getter disposed the model", async () => {
    const model = await loadRawTinyModel();
    const context = await createRawContext(model);
    const tokens = model.tokenize("Hello there", true, false);
    expect(() =>
      context.generate({
        ...required,
        tokens,
        greedy: true,
        get grammar() {
          model.dispose();
          return "";
        },
        maxTokens: 4,
      }),
    ).toThrow(expect.objectContaining({ code: "ERR_DISPOSED" }));
  });

  it("refuses a context whose threads getter disposed the model", async () => {
    const model = await loadRawTinyModel();
    await expect(
      model.createContext({
        contextSize: 256,
        batchSize: 64,
        sequences: 1,
        get threads() {
          model.dispose();
          return 1;
        },
        batchThreads: 1,
        unifiedKvCache: false,
      }),
    ).rejects.toMatchObject({ code: "ERR_DISPOSED" });
  });
});
