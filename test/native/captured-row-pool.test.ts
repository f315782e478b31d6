// Full captures hand each event's row to JavaScript without a copy, from a pool of rows the context keeps
// (native/src/row-pool.h): a row comes back when the garbage collector frees its Float32Array and later
// tokens reuse it. A row the caller still holds must never be reused or freed, even after the context and
// the model are disposed; the pool must keep no more than its 64 MiB.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import { loadTinyModel } from "./tiny-model.js";

// The collector, without starting the test worker with --expose-gc.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

// A collection, then the turns of the event loop in which Node runs the freed arrays' finalizers.
async function collect(): Promise<void> {
  for (let pass = 0; pass < 3; pass++) {
    collectGarbage();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("the pool of full-capture rows", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 1024, threads: 1 });
    prompt = model.tokenize("The quick brown fox");
  });
  afterAll(() => model.dispose());

  const fullGreedy = (maxTokens: number, extra: GenerateTokensOptions = {}): GenerateTokensOptions => ({
    temperature: 0,
    ignoreEos: true,
    reusePrefix: false,
    maxTokens,
    rawLogits: "full",
    queueCapacity: 8,
    ...extra,
  });

  // Reads every event and keeps nothing: each row is garbage once its batch is read.
  async function drain(options: GenerateTokensOptions, from = prompt): Promise<number> {
    let count = 0;
    for await (const event of context.generate(from, options)) {
      if (event.rawLogits?.full?.length !== model.vocabSize) throw new Error("an event came without its row");
      count++;
    }
    return count;
  }

  it("reuses the rows the caller let go instead of allocating new ones", async () => {
    await collect();
    const start = context.counters.capturedRowsAllocated;
    expect(await drain(fullGreedy(48))).toBe(48);
    const afterFirst = context.counters.capturedRowsAllocated;
    // Every row of the first generation was still held by JavaScript when the next token needed one.
    expect(afterFirst - start).toBeGreaterThanOrEqual(8);
    await collect();
    expect(context.counters.capturedRowsKept).toBeGreaterThanOrEqual(afterFirst - start);
    expect(await drain(fullGreedy(48))).toBe(48);
    // The second generation took its rows from the pool.
    expect(context.counters.capturedRowsAllocated).toBe(afterFirst);
  });

  it("never reuses a row the caller still holds", async () => {
    const kept: Float32Array[] = [];
    const copies: number[][] = [];
    for await (const event of context.generate(prompt, fullGreedy(12, { logits: "full" }))) {
      kept.push(event.rawLogits!.full!, event.logits!.full!);
      copies.push(Array.from(event.rawLogits!.full!), Array.from(event.logits!.full!));
    }
    await collect();
    // Other generations, from other prompts, take and fill rows from the pool meanwhile.
    await drain(fullGreedy(40), model.tokenize("Once upon a time"));
    await drain(fullGreedy(40, { temperature: 0.9, seed: 4, logits: "full" }), model.tokenize("A river"));
    await collect();
    kept.forEach((row, index) => {
      expect(Array.from(row)).toEqual(copies[index]);
    });
  });

  it("keeps a held row readable after its context and model are disposed", async () => {
    const own = await loadTinyModel();
    const ownContext = await own.createContext({ contextSize: 256, threads: 1 });
    const rows: Float32Array[] = [];
    for await (const event of ownContext.generate(own.tokenize("The quick"), fullGreedy(6)))
      rows.push(event.rawLogits!.full!);
    const copies = rows.map((row) => Array.from(row));
    ownContext.dispose();
    await own.dispose();
    await collect();
    rows.forEach((row, index) => {
      expect(Array.from(row)).toEqual(copies[index]);
    });
    // Letting them go now returns them to a pool whose context is gone: freed, no crash.
    rows.length = 0;
    await collect();
  });

  it("keeps at most 64 MiB of returned rows, and hands out no more", async () => {
    const rowBytes = model.vocabSize * 4;
    const limit = Math.floor((64 * 1024 ** 2) / rowBytes);
    // All held at once, so none can come back before the end: more rows than the pool may keep.
    const held: Float32Array[] = [];
    for await (const event of context.generate(prompt, fullGreedy(limit + 64, { queueCapacity: 16 })))
      held.push(event.rawLogits!.full!);
    expect(held).toHaveLength(limit + 64);
    // As many pooled rows as the pool may keep are out at once; the 64 past them came as copies.
    expect(context.counters.capturedRowsHandedOut).toBe(limit);
    expect(context.counters.capturedRowsAllocated).toBeGreaterThanOrEqual(limit);
    held.length = 0;
    await collect();
    expect(context.counters.capturedRowsHandedOut).toBe(0);
    expect(context.counters.capturedRowsKept).toBe(limit);
  });

  it("copies rows instead of growing the pool for a reader that never yields to the event loop", async () => {
    const limit = Math.floor((64 * 1024 ** 2) / (model.vocabSize * 4));
    await collect();
    const start = context.counters.capturedRowsAllocated;
    const tokens = limit + 200;
    let count = 0;
    let mostHandedOut = 0;
    // Slower than decoding, so every pull finds events waiting and resolves at once: the loop only ever
    // runs microtasks, and Node never gets the turn in which it gives collected rows back. Before, every
    // token then took a new row (RSS grew by a row per token for as long as the generation ran).
    for await (const event of context.generate(prompt, fullGreedy(tokens))) {
      if (event.rawLogits?.full?.length !== model.vocabSize) throw new Error("an event came without its row");
      const until = performance.now() + 1;
      while (performance.now() < until) {
        // a reader's per-token work
      }
      mostHandedOut = Math.max(mostHandedOut, context.counters.capturedRowsHandedOut);
      count++;
    }
    expect(count).toBe(tokens);
    expect(mostHandedOut).toBeLessThanOrEqual(limit);
    // At most the hand-out limit and the ring's own rows are ever allocated.
    expect(context.counters.capturedRowsAllocated - start).toBeLessThanOrEqual(limit + 16);
  });
});
