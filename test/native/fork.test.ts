// A fork continues a generation at any of its tokens by copying the source's KV cells
// (llama_memory_seq_cp) instead of prefilling them again: the engine's own counters show that only the
// new token is decoded. With more branches than sequences, the least recently used branch gives its
// cells back and is prefilled again when it is read on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaBranchPool } from "../../src/backends/llamacpp/branches/llama-branch-pool.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { alternativeOf, greedyWithCandidates, openTinyContext } from "./tiny-model.js";

const greedy = greedyWithCandidates;

describe("forking a generation", () => {
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

  it("copies the whole prefix from a held source and decodes only the new token", async () => {
    const source = context.generate(prompt, greedy);
    const iterator = source[Symbol.asyncIterator]();
    const events: TokenEvent[] = [];
    for (let index = 0; index < 10; index++) events.push((await iterator.next()).value as TokenEvent);
    const at = 6;
    const before = context.counters;
    const fork = await context
      .fork({ promptTokens: prompt, tokens: events.map((event) => event.token) }, at, {
        ...greedy,
        token: alternativeOf(events[at]!),
        maxTokens: 3,
      })
      .collect();
    const after = context.counters;
    expect(fork.promptTokens).toBe(prompt.length + at + 1);
    expect(fork.reusedPromptTokens).toBe(prompt.length + at);
    expect(after.promptTokensDecoded - before.promptTokensDecoded).toBe(1);
    // The source was held (paused, not finished): the fork took the other sequence.
    await iterator.return!();
    const sourceResult = await source.result;
    expect(fork.sequence).not.toBe(sourceResult.sequence);
  });

  it("re-samples a position with other settings from the copied prefix", async () => {
    const pool = new LlamaBranchPool(context);
    const root = pool.start(prompt, greedy);
    await root.read(8);
    const before = context.counters.promptTokensDecoded;
    const resampled = await pool.fork(root, 5, { options: { ...greedy, temperature: 1.5, seed: 7 } });
    await resampled.read(2);
    // The prompt ends at token 4; its cells are copied, and token 4 is decoded again for its logits.
    expect(context.counters.promptTokensDecoded - before).toBe(1);
    const result = await resampled.release();
    expect(result!.reusedPromptTokens).toBe(prompt.length + 4);
    await pool.close();
  });

  it("gives the least recently used branch's cells back when branches outnumber sequences", async () => {
    const pool = new LlamaBranchPool(context);
    const a = pool.start(prompt, greedy);
    const aEvents = await a.read(16);
    const b = await pool.fork(a, 2, { token: alternativeOf(aEvents[2]!) });
    await b.read(3);
    expect(pool.heldBranches.map((branch) => branch.id)).toEqual([a.id, b.id]);

    // A third branch on a 2-sequence context: b is the least recently used (the fork counts as a use of
    // a, whose cells it copies), so b gives its sequence back; c takes it and copies a's whole prefix
    // (the engine copies when that saves at least 8 tokens over what the sequence already shares).
    const before = context.counters.promptTokensDecoded;
    const c = await pool.fork(a, 12, { token: alternativeOf(aEvents[12]!) });
    await c.read(3);
    expect(context.counters.promptTokensDecoded - before).toBe(1);
    expect(b.held).toBe(false);
    expect(pool.heldBranches.map((branch) => branch.id)).toEqual([a.id, c.id]);

    // Revisiting b: a is now least recently used and gives its sequence back; b is prefilled again. Only
    // the prefix it shares with a and c (prompt + a's first 2 tokens) is reused; its own tokens were
    // overwritten by c and are decoded again.
    const beforeRevisit = context.counters.promptTokensDecoded;
    const bTokensBefore = b.events.length;
    await b.read(2);
    expect(a.held).toBe(false);
    const revisit = await b.release();
    const revisitPrompt = b.promptTokens.length + bTokensBefore;
    expect(revisit!.promptTokens).toBe(revisitPrompt);
    expect(revisit!.reusedPromptTokens).toBe(prompt.length + 2);
    expect(context.counters.promptTokensDecoded - beforeRevisit).toBe(revisitPrompt - (prompt.length + 2));
    expect(b.events).toHaveLength(bTokensBefore + 2);
    await pool.close();
    expect(context.counters.liveSequences).toBe(0);
  });

  it("with one sequence, a fork takes its source's sequence and still reuses the whole prefix", async () => {
    const single = await model.createContext({ contextSize: 256, batchSize: 64, sequences: 1, threads: 1 });
    try {
      const pool = new LlamaBranchPool(single);
      const a = pool.start(prompt, greedy);
      const events = await a.read(10);
      const before = single.counters.promptTokensDecoded;
      // The only sequence is held by a (paused): the fork must not wait for it forever.
      const b = await pool.fork(a, 6, { token: alternativeOf(events[6]!) });
      await b.read(2);
      expect(a.held).toBe(false);
      expect(single.counters.promptTokensDecoded - before).toBe(1);
      expect((await b.release())!.reusedPromptTokens).toBe(prompt.length + 6);
      await pool.close();
    } finally {
      single.dispose();
    }
  }, 20_000);
});
