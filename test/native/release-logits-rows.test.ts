// releaseLogitsRows (issue 14): a generation's full logits rows go back to their context's pool when the
// caller is done with them, not at a collection during some later generation. Nothing here forces a
// collection, and every row stays referenced until it is counted, so rows back in the pool were given back
// by the release itself (the counts fail with releaseRows reduced to a no-op).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { LlamaCppModelOptions } from "../../src/backends/llamacpp/llama-cpp-model-options.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { releaseLogitsRows } from "../../src/backends/llamacpp/release-logits-rows.js";
import { CBlock } from "../../src/core/cblock.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { openTinyContext } from "./tiny-model.js";

// Node runs a released row's finalizer (which gives the row back) on a later turn of the event loop.
async function turns(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe("releaseLogitsRows on a thunk's generation", () => {
  let backend: LlamaCppBackend;
  beforeAll(async () => {
    backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256 });
  });
  afterAll(async () => backend[Symbol.asyncDispose]());

  async function fullGeneration(tokens: number, logits: "full" | 5 = "full") {
    const { thunk } = await backend.generateFromContext(new CBlock("Once upon a time"), new ChatContext(), {
      modelOptions: {
        maxNewTokens: tokens,
        temperature: 0,
        ignoreEos: true,
        logits,
        rawLogits: logits,
      } as LlamaCppModelOptions,
    });
    await thunk.avalue();
    return thunk;
  }

  it("gives the rows back to the pool at once and leaves every array empty", async () => {
    const thunk = await fullGeneration(6);
    const rows = [...thunk.generation.rawLogits!.steps, ...thunk.generation.logits!.steps].map(
      (step) => step.full!,
    );
    expect(rows).toHaveLength(12);
    expect(rows.every((row) => row.length === 32000)).toBe(true);
    const before = backend.context.counters;
    expect(before.capturedRowsHandedOut).toBe(12);

    expect(releaseLogitsRows(thunk.generation)).toBe(12);
    expect(rows.every((row) => row.length === 0 && row.buffer.byteLength === 0)).toBe(true);
    await turns();
    const after = backend.context.counters;
    expect(after.capturedRowsHandedOut).toBe(0);
    expect(after.capturedRowsKept).toBe(before.capturedRowsKept + 12);

    // The next generation of the same length decodes into those rows: nothing new is allocated.
    const next = await fullGeneration(6);
    expect(backend.context.counters.capturedRowsAllocated).toBe(after.capturedRowsAllocated);
    expect(releaseLogitsRows(next.generation)).toBe(12);
    // Released already: nothing is left to give back, and the arrays stay empty.
    expect(releaseLogitsRows(thunk.generation)).toBe(0);
    expect(rows.every((row) => row.length === 0)).toBe(true);
  });

  it("returns 0 for a generation without full rows", async () => {
    const thunk = await fullGeneration(3, 5);
    expect(thunk.generation.rawLogits!.steps).toHaveLength(3);
    expect(releaseLogitsRows(thunk.generation)).toBe(0);
    expect(thunk.generation.rawLogits!.steps[0]!.top).toHaveLength(5);
  });
});

describe("releaseLogitsRows on LlamaContext.generate's rows", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  beforeAll(async () => {
    ({ model, context, prompt } = await openTinyContext({ contextSize: 256, threads: 1 }, "A river stone"));
  });
  afterAll(() => model.dispose());

  async function rowsOf(options: Record<string, unknown>, on = context): Promise<Float32Array[]> {
    const rows: Float32Array[] = [];
    for await (const event of on.generate(prompt, {
      maxTokens: 4,
      ignoreEos: true,
      reusePrefix: false,
      ...options,
    })) {
      if (event.rawLogits?.full) rows.push(event.rawLogits.full);
      if (event.logits?.full) rows.push(event.logits.full);
    }
    return rows;
  }

  it("takes the events' rows, skipping views into a larger buffer", async () => {
    const rows = await rowsOf({ temperature: 0.8, seed: 2, rawLogits: "full", logits: "full" });
    expect(rows).toHaveLength(8);
    const shared = new ArrayBuffer(64);
    const view = new Float32Array(shared, 16, 4);
    view.fill(3);
    expect(releaseLogitsRows([...rows, view])).toBe(8);
    expect(rows.every((row) => row.length === 0)).toBe(true);
    // A view into part of a buffer is never detached: the rest of the buffer may be someone else's.
    expect(Array.from(view)).toEqual([3, 3, 3, 3]);
    expect(shared.byteLength).toBe(64);
    await turns();
    expect(context.counters.capturedRowsHandedOut).toBe(0);
  });

  it("frees rows released after their context is disposed, without a crash", async () => {
    const other = await model.createContext({ contextSize: 256, threads: 1 });
    const rows = await rowsOf({ temperature: 0, rawLogits: "full" }, other);
    expect(rows).toHaveLength(4);
    other.dispose();
    expect(releaseLogitsRows(rows)).toBe(4);
    await turns();
    expect(rows.every((row) => row.length === 0)).toBe(true);
    // The model's other context still decodes.
    expect(await rowsOf({ temperature: 0, rawLogits: "full" })).toHaveLength(4);
  });
});
