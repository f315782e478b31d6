// Defect 6 of the native hardening: full logits capture allocated queueCapacity × vocabulary × 4 bytes
// for each of raw and processed when the generation started, so a large capacity on a big vocabulary
// meant gigabytes up front, then bad_alloc or the OOM killer. Now the rows are allocated as the ring
// fills, and the addon refuses a ring that could outgrow its budget (the TypeScript layer refuses it
// first, with IncompatibleOptionsError; this checks the addon itself).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  NativeContext,
  NativeGenerateOptions,
  NativeModel,
} from "../../src/backends/llamacpp/addon-types.js";
import { createRawContext, loadRawTinyModel } from "./tiny-model.js";

describe("memory of full logits capture", () => {
  let model: NativeModel;
  let context: NativeContext;
  let vocabSize: number;
  beforeAll(async () => {
    model = await loadRawTinyModel();
    vocabSize = model.getMetadata().vocabSize;
    context = await createRawContext(model);
  });
  afterAll(() => {
    context.dispose();
    model.dispose();
  });

  const options = (queueCapacity: number): NativeGenerateOptions => ({
    tokens: model.tokenize("Once upon a time", true, false),
    greedy: true,
    seed: 0,
    maxTokens: 16,
    ignoreEos: true,
    promptLogprobs: false,
    reusePrefix: false,
    queueCapacity,
    rawFull: true,
    processedFull: true,
  });

  it("allocates rows only for the events waiting in the ring, not for its whole capacity", async () => {
    // The largest ring the 1 GiB budget allows: 4,194 slots × 32,000 floats × 2 kinds on the tiny model.
    const capacity = Math.floor(1024 ** 3 / (vocabSize * 4 * 2));
    const before = process.memoryUsage().rss;
    const generation = context.generate(options(capacity));
    let events = 0;
    let rows = 0;
    for (;;) {
      const batch = await generation.pull(4);
      events += batch.count;
      rows += batch.raw?.fullRows?.length ?? 0;
      for (const row of batch.raw?.fullRows ?? []) expect(row.length).toBe(vocabSize);
      if (batch.done) break;
    }
    const grown = process.memoryUsage().rss - before;
    expect(events).toBe(16);
    expect(rows).toBe(16);
    // Up front, this ring was 1 GiB; 16 events with two rows each are 4 MiB.
    expect(grown).toBeLessThan(128 * 1024 ** 2);
  });

  it("refuses a ring that could hold more than the budget, naming the numbers", () => {
    const capacity = Math.floor(1024 ** 3 / (vocabSize * 4 * 2)) + 1;
    let caught: unknown;
    try {
      context.generate(options(capacity));
    } catch (error) {
      caught = error;
    }
    expect((caught as { code?: string }).code).toBe("ERR_CAPTURE_BUDGET");
    expect(String(caught)).toContain(`queueCapacity (${capacity})`);
    expect(String(caught)).toContain(`vocabulary (${vocabSize})`);
    expect(String(caught)).toMatch(/use queueCapacity <= \d+/);
  });

  // Found in review: a top-k entry costs 8 bytes (id and value), so a top k near the vocabulary costs
  // twice a full row, and only full rows were counted.
  it("counts top-k captures in the budget too", () => {
    const perSlot = vocabSize * 8 * 2;
    const capacity = Math.floor(1024 ** 3 / perSlot) + 1;
    let caught: unknown;
    try {
      context.generate({
        ...options(capacity),
        rawFull: false,
        processedFull: false,
        rawTopK: vocabSize,
        processedTopK: vocabSize,
      });
    } catch (error) {
      caught = error;
    }
    expect((caught as { code?: string }).code).toBe("ERR_CAPTURE_BUDGET");
    expect(String(caught)).toContain(`${perSlot} bytes per slot`);
  });
});
