// releaseLogitsRows (issue 14): a generation's full logits rows go back to their context's pool when the
// caller is done with them, not at a collection during some later generation. Nothing here forces a
// collection, and every row stays referenced until it is counted, so rows back in the pool were given back
// by the release itself (the counts fail with releaseRows reduced to a no-op).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReleaseSourceError } from "../../src/backends/llamacpp/errors/release-source-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { LlamaCppModelOptions } from "../../src/backends/llamacpp/llama-cpp-model-options.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../../src/backends/llamacpp/native-addon.js";
import { releaseLogitsRows } from "../../src/backends/llamacpp/release-logits-rows.js";
import { CBlock } from "../../src/core/cblock.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { stepEntropy } from "../../src/stdlib/requirements/token-signals.js";
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

  it("gives the rows back to the pool at once, empties them and takes them off the steps", async () => {
    const thunk = await fullGeneration(6);
    const steps = [...thunk.generation.rawLogits!.steps, ...thunk.generation.logits!.steps];
    const rows = steps.map((step) => step.full!);
    expect(rows).toHaveLength(12);
    expect(rows.every((row) => row.length === 32000)).toBe(true);
    expect(stepEntropy(steps[0]!)).toBeGreaterThan(0);
    const before = backend.context.counters;
    expect(before.capturedRowsHandedOut).toBe(12);

    expect(releaseLogitsRows(thunk.generation)).toBe(12);
    expect(rows.every((row) => row.length === 0 && row.buffer.byteLength === 0)).toBe(true);
    // The steps have no full vector any more, so their readers fall back instead of meeting a detached
    // buffer (iterating one throws a TypeError).
    expect(steps.every((step) => step.full === undefined)).toBe(true);
    expect(stepEntropy(steps[0]!)).toBeNull();
    expect(() => [...rows[0]!]).toThrow(TypeError);
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
    expect(releaseLogitsRows(rows)).toBe(0);
    expect(rows.every((row) => row.length === 0)).toBe(true);
  });

  it("leaves a frozen step its row, and a step another backend filled its vector", async () => {
    const thunk = await fullGeneration(3);
    const frozen = thunk.generation.rawLogits!.steps[2]!;
    Object.freeze(frozen);
    expect(releaseLogitsRows(thunk.generation)).toBe(5);
    expect(frozen.full!.length).toBe(32000);
    expect(stepEntropy(frozen)).toBeGreaterThan(0);
    // A full vector the addon did not hand out (a fabricated trace) is neither released nor taken away.
    const vector = new Float32Array([0, 1, 2]);
    const foreign = {
      logits: { kind: "processed", source: "test", topK: null, vocabSize: 3, steps: [{ full: vector }] },
      rawLogits: null,
    };
    expect(releaseLogitsRows(foreign as never)).toBe(0);
    expect(foreign.logits.steps[0]!.full).toBe(vector);
    expect(Array.from(vector)).toEqual([0, 1, 2]);
  });

  it("keeps the trace's readers working when a thunk's rows are released as a list", async () => {
    const thunk = await fullGeneration(2);
    const steps = thunk.generation.logits!.steps;
    // A subarray of a row is not a row: nothing is released through it.
    expect(releaseLogitsRows([steps[0]!.full!.subarray(10, 20)])).toBe(0);
    expect(steps[0]!.full!.length).toBe(32000);
    expect(releaseLogitsRows(steps.map((step) => step.full!))).toBe(2);
    // Released as a list, the rows stay on their steps, empty: entropy falls back instead of throwing.
    expect(steps[0]!.full!.length).toBe(0);
    expect(stepEntropy(steps[0]!)).toBeNull();
    // The raw rows are still there to release; the processed steps keep their empty arrays.
    expect(releaseLogitsRows(thunk.generation)).toBe(2);
    expect(steps[0]!.full!.length).toBe(0);
    await turns();
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

  it("takes the events' rows and nothing else it is given", async () => {
    const rows = await rowsOf({ temperature: 0.8, seed: 2, rawLogits: "full", logits: "full" });
    expect(rows).toHaveLength(8);
    // Arrays the addon did not hand out are never detached, whole-buffer ones included. Checked first on an
    // array of this test's own, so that a release that detached anything fails here, cleanly, before the
    // slab below: a Float32Array over a slab of Node's Buffer pool, which every small Buffer shares, would
    // break every later Buffer.from in this worker (vitest's own messages too, a hang).
    const own = new Float32Array([1, 2, 3]);
    expect(loadNativeAddon().releaseRows([own])).toBe(0);
    expect(Array.from(own)).toEqual([1, 2, 3]);
    expect(releaseLogitsRows([...rows, own, null as never, "row" as never])).toBe(8);
    expect(rows.every((row) => row.length === 0)).toBe(true);
    expect(Array.from(own)).toEqual([1, 2, 3]);
    const slab = Buffer.from("hello world").buffer;
    expect(releaseLogitsRows([new Float32Array(slab, 0, Math.floor(slab.byteLength / 4))])).toBe(0);
    expect(slab.byteLength).toBeGreaterThan(0);
    expect(Buffer.from("still works").toString()).toBe("still works");
    await turns();
    expect(context.counters.capturedRowsHandedOut).toBe(0);
  });

  it("rejects what is neither a generation's metadata nor a list of rows, naming what to pass", () => {
    for (const bad of [null, undefined, "rows", 3, new Float32Array(4), {}]) {
      expect(() => releaseLogitsRows(bad as never)).toThrow(ReleaseSourceError);
    }
    // Likely mistakes that would otherwise release nothing: a trace, a list of steps, a list of generations.
    const trace = { kind: "raw", steps: [{ full: new Float32Array(2) }] };
    expect(() => releaseLogitsRows(trace as never)).toThrow(
      /received a logits trace.*releaseLogitsRows\(thunk\.generation\)/,
    );
    expect(() => releaseLogitsRows(trace.steps as never)).toThrow(/list holding logits steps.*step\.full/);
    expect(() => releaseLogitsRows([{ logits: null, rawLogits: null }] as never)).toThrow(ReleaseSourceError);
    expect(() => releaseLogitsRows(undefined as never)).toThrow(
      /received undefined\. Pass thunk\.generation/,
    );
    // The message is made even for values that hide what they are, and names a class with its article.
    const trap = new Proxy(
      {},
      {
        get() {
          throw new Error("trap");
        },
        has() {
          throw new Error("trap");
        },
      },
    );
    expect(new ReleaseSourceError(trap).message).toMatch(/received an object\. Nothing was released\.$/);
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    expect(new ReleaseSourceError(revocable.proxy).message).toContain("received an object.");
    expect(new ReleaseSourceError(new Set()).message).toContain("received a Set.");
    expect(new ReleaseSourceError(new (class Apple {})()).message).toContain("received an Apple.");
    expect(() => releaseLogitsRows({ generation: {} } as never)).toThrow(
      /releaseLogitsRows\(thunk\.generation\)/,
    );
    expect(() => releaseLogitsRows({ logits: { steps: 5 }, rawLogits: null } as never)).toThrow(
      ReleaseSourceError,
    );
    expect(() => releaseLogitsRows(new Float32Array(4) as never)).toThrow(
      /received a single Float32Array.*\[row\]/,
    );
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
