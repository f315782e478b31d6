// Forks that are never read, started together, or that fail to start: none of them may leave the
// pool waiting forever or spinning. Each wait is bounded, so a hang fails the test instead of the suite.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaBranchPool } from "../../src/backends/llamacpp/branches/llama-branch-pool.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { alternativeOf, greedyWithCandidates, openTinyContext } from "./tiny-model.js";

const greedy = greedyWithCandidates;

function within<T>(promise: Promise<T>, what: string, ms = 8000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe("forks that are never read, concurrent, or fail to start", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  beforeAll(async () => {
    ({ model, context, prompt } = await openTinyContext(
      { contextSize: 256, batchSize: 64, sequences: 2, threads: 1 },
      "Once upon a time, in a land far away, there lived a small cat",
    ));
  });
  afterAll(() => model.dispose());

  it("ends a stream whose iterator is returned before its first pull", async () => {
    const stream = context.generate(prompt, greedy);
    const iterator = stream[Symbol.asyncIterator]();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await within(Promise.resolve(iterator.return!()), "iterator.return()");
    const result = await within(stream.result, "the stream's result");
    expect(result.finishReason).toBe("abort");
    expect(context.counters.liveSequences).toBe(0);
  }, 20_000);

  it("closes a pool whose fork was never read", async () => {
    const pool = new LlamaBranchPool(context);
    const root = pool.start(prompt, greedy);
    const events = await root.read(5);
    await pool.fork(root, 2, { token: alternativeOf(events[2]!) });
    await within(pool.close(), "pool.close()");
    expect(context.counters.liveSequences).toBe(0);
  }, 20_000);

  it("runs two forks started together on a two-sequence context, each from the copied prefix", async () => {
    const pool = new LlamaBranchPool(context);
    const root = pool.start(prompt, greedy);
    const events = await root.read(20);
    const forks = await within(
      Promise.all([0, 3].map((at) => pool.fork(root, at, { token: alternativeOf(events[at]!) }))),
      "two concurrent forks",
    );
    const read = await within(Promise.all(forks.map((fork) => fork.read(5))), "reading both forks");
    expect(read.map((events) => events.length)).toEqual([5, 5]);
    await within(pool.close(), "pool.close()");
  }, 30_000);

  it("drops a branch whose generation fails to start, so the next one gets a sequence", async () => {
    const single = await model.createContext({ contextSize: 256, batchSize: 64, sequences: 1, threads: 1 });
    try {
      const pool = new LlamaBranchPool(single);
      const big = pool.start(model.tokenize("word ".repeat(600)), greedy);
      await expect(big.read(2)).rejects.toThrow(/Context overflow/);
      // Checked before the next read: a ghost left here made that read spin on microtasks forever.
      expect(pool.heldBranches.map((branch) => branch.id)).toEqual([]);
      const small = pool.start(model.tokenize("hello"), greedy);
      expect(await within(small.read(2), "reading after a failed start")).toHaveLength(2);
      await pool.close();
    } finally {
      single.dispose();
    }
  }, 20_000);

  it("refuses a fork past a full sequence and leaves no ghost behind", async () => {
    const single = await model.createContext({ contextSize: 256, batchSize: 64, sequences: 1, threads: 1 });
    try {
      const pool = new LlamaBranchPool(single);
      const root = pool.start(prompt, greedy);
      const events = await within(root.read(1000), "reading until the sequence is full", 60_000);
      expect(root.finishReason).toBe("length");
      await expect(pool.fork(root, events.length, { token: 5 })).rejects.toThrow(/Context overflow/);
      expect(pool.heldBranches.every((branch) => branch.held)).toBe(true);
      const other = pool.start(model.tokenize("hello"), greedy);
      expect(await within(other.read(2), "reading after a failed fork")).toHaveLength(2);
      await pool.close();
    } finally {
      single.dispose();
    }
  }, 90_000);
});
