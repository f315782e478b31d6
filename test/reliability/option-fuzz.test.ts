// The option fuzzer on a small fixed budget (compiled child, so `npm run build` first): every case of
// seed 1 ends in working objects or a typed error. With the batchSize >= sequences guard reverted, the
// same seed crashed at case 2 with GGML_ASSERT(n_outputs_max <= cparams.n_outputs_max) (23 of the
// first 200 cases; docs/native-assertions.md).
import { describe, expect, it } from "vitest";
import { runOptionFuzz } from "../../src/reliability/option-fuzz.js";
import { buildOptionFuzzCase, describeOptionFuzzCase } from "../../src/reliability/option-fuzz-case.js";

describe("the option fuzzer", () => {
  it("builds the same case from the same seed and number, another from another number", () => {
    const describe = (index: number) => describeOptionFuzzCase(buildOptionFuzzCase(1, index, 32000));
    expect(describe(7)).toBe(describe(7));
    expect(describe(7)).not.toBe(describe(8));
  });

  it("draws values outside the ranges and batch sizes below the sequence count", () => {
    const cases = Array.from({ length: 200 }, (_, index) => buildOptionFuzzCase(1, index, 32000));
    const text = cases.map(describeOptionFuzzCase).join("\n");
    for (const value of ["NaN", "-0", "Infinity", "5e-324", "1e-40", "4294967295"])
      expect(text).toContain(value);
    const tooSmallBatch = cases.filter(({ context }) => {
      const sequences = typeof context.sequences === "number" ? context.sequences : 1;
      return typeof context.batchSize === "number" && context.batchSize < sequences && sequences <= 256;
    });
    expect(tooSmallBatch.length).toBeGreaterThan(5);
    // flashAttention's three choices, and values that are not one of them.
    const flashAttention = new Set(cases.map(({ context }) => JSON.stringify(context.flashAttention)));
    for (const value of ['"auto"', '"on"', '"off"', '"yes"', "true", "1"])
      expect(flashAttention, `flashAttention ${value}`).toContain(value);
  });

  it("ends every case of seed 1 (0-39) in working objects or a typed error, in a child process", async () => {
    const figures = await runOptionFuzz({ cases: 40, runSeed: 1, timeoutMs: 30_000 });
    expect(figures.findings).toEqual([]);
    expect(figures.crashes + figures.hangs + figures.untypedErrors).toBe(0);
    expect(figures.ok).toBeGreaterThan(5);
    expect(figures.typedErrors).toBeGreaterThan(5);
    expect(figures.childrenStarted).toBe(1);
  }, 120_000);
});
