// A prefill-ahead (LlamaContext.prefillPrefix) decodes a prompt's first tokens into a sequence's cells
// while JavaScript still tokenizes the rest; the generation started with `afterPrefill` waits for it and
// reuses the cells of the prefix they share. It moves work earlier and must never change what is
// decoded: these tests compare every answer with the same prompt on a context that never saw a prefill.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { IncompatibleOptionsError } from "../../src/backends/llamacpp/errors/incompatible-options-error.js";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import { LlamaDisposedError } from "../../src/backends/llamacpp/errors/llama-disposed-error.js";
import type { LlamaContext, LlamaContextOptions } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenStream, TokenStreamResult } from "../../src/backends/llamacpp/token-stream.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import { GenerationAbortedError } from "../../src/core/errors/generation-aborted-error.js";
import { createRawContext, loadRawTinyModel, loadTinyModel } from "./tiny-model.js";

/** vi.waitUntil's default second is short for a loaded 2-core machine (or a sanitizer build). */
const patiently = { timeout: 10_000, interval: 5 };

const greedy = { temperature: 0, maxTokens: 6, ignoreEos: true } as const;

describe("prefilling a prompt's prefix ahead of its generation", () => {
  let model: LlamaModel;
  let reference: LlamaContext;
  let prompt: Int32Array;
  let expected: number[];

  beforeAll(async () => {
    model = await loadTinyModel();
    reference = await model.createContext({ contextSize: 1024, threads: 1, flashAttention: "off" });
    prompt = model.tokenize(
      "river stone garden letter window morning silver market candle harbor meadow lantern journey ".repeat(
        20,
      ),
    );
    expected = (await answer(reference.generate(prompt, greedy))).tokens;
  });
  afterAll(() => model.dispose());

  async function answer(stream: TokenStream): Promise<{ tokens: number[]; result: TokenStreamResult }> {
    const tokens: number[] = [];
    for await (const event of stream) tokens.push(event.token);
    return { tokens, result: await stream.result };
  }

  async function withContext(
    settings: Partial<LlamaContextOptions>,
    test: (context: LlamaContext) => Promise<void>,
  ): Promise<void> {
    const context = await model.createContext({
      contextSize: 1024,
      threads: 1,
      flashAttention: "off",
      ...settings,
    });
    try {
      await test(context);
    } finally {
      context.dispose();
    }
  }

  const run = (context: LlamaContext, options: GenerateTokensOptions = {}) =>
    answer(context.generate(prompt, { ...greedy, ...options }));

  it("reuses the prefilled cells, decodes each prompt token once, and answers as without it", async () => {
    await withContext({}, async (context) => {
      const prefill = context.prefillPrefix(prompt.subarray(0, 100));
      const { tokens, result } = await run(context, { afterPrefill: prefill });
      expect(tokens).toEqual(expected);
      expect(result.reusedPromptTokens).toBe(100);
      expect(prefill.finished).toBe(true);
      expect(prefill.reusedPromptTokens).toBe(0);
      expect(context.counters.promptTokensDecoded).toBe(prompt.length);
    });
  });

  it("reuses only the shared part of a prefill whose tail differs from the prompt", async () => {
    await withContext({}, async (context) => {
      const guessed = Int32Array.from([
        ...prompt.subarray(0, 90),
        ...model.tokenize("unrelated tail words", { addSpecial: false }),
      ]);
      const prefill = context.prefillPrefix(guessed);
      const { tokens, result } = await run(context, { afterPrefill: prefill });
      expect(tokens).toEqual(expected);
      expect(result.reusedPromptTokens).toBe(90);
    });
  });

  it("leaves a sequence that already holds the whole prefix as it is (a chat's next turn)", async () => {
    await withContext({ sequences: 2 }, async (context) => {
      const first = await run(context);
      const prefill = context.prefillPrefix(prompt.subarray(0, 64));
      const next = Int32Array.from([
        ...prompt,
        ...first.tokens,
        ...model.tokenize(" and then", { addSpecial: false }),
      ]);
      const turn = await answer(context.generate(next, { ...greedy, afterPrefill: prefill }));
      expect(prefill.reusedPromptTokens).toBe(64);
      expect(turn.result.sequence).toBe(first.result.sequence);
      // The history stayed whole: only what the first turn's last token and the new words add is decoded.
      expect(turn.result.reusedPromptTokens).toBe(prompt.length + first.tokens.length - 1);
      const alone = await answer(reference.generate(next, greedy));
      expect(turn.tokens).toEqual(alone.tokens);
    });
  });

  it("makes its generation wait for it rather than take another free sequence", async () => {
    await withContext({ sequences: 2 }, async (context) => {
      const prefill = context.prefillPrefix(prompt.subarray(0, 200));
      const { tokens, result } = await run(context, { afterPrefill: prefill });
      expect(tokens).toEqual(expected);
      expect(result.reusedPromptTokens).toBe(200);
      expect(context.counters.peakLiveSequences).toBe(1);
      expect(context.counters.promptTokensDecoded).toBe(prompt.length);
    });
  });

  it("gives the cells to its own generation before a job queued in between", async () => {
    await withContext({ sequences: 1 }, async (context) => {
      const prefill = context.prefillPrefix(prompt.subarray(0, 256));
      const other = context.generate(model.tokenize("Something else entirely"), greedy);
      const follower = run(context, { afterPrefill: prefill });
      const [mine, theirs] = await Promise.all([follower, answer(other)]);
      expect(mine.tokens).toEqual(expected);
      expect(mine.result.reusedPromptTokens).toBe(256);
      expect(theirs.result.finishReason).toBe("length");
    });
  });

  it("finishes a prefill whose whole prompt it copies from a busy sequence (its follower waited forever)", async () => {
    await withContext({ sequences: 2, contextSize: 2048 }, async (context) => {
      // The busy generation holds sequence 0 with the whole prompt and stays live (its reader waits).
      const busy = context.generate(prompt, { ...greedy, maxTokens: 50, queueCapacity: 1 });
      await vi.waitUntil(() => context.counters.promptTokensDecoded >= prompt.length, patiently);
      const prefill = context.prefillPrefix(prompt.subarray(0, 100));
      await vi.waitUntil(() => prefill.finished, patiently);
      expect(prefill.reusedPromptTokens).toBe(100);
      const follower = run(context, { afterPrefill: prefill });
      await answer(busy);
      expect((await follower).tokens).toEqual(expected);
    });
  });

  it("sends a follower whose prefill's sequence was taken and filled again elsewhere (a reviewer's case)", async () => {
    await withContext({ sequences: 2, contextSize: 2048 }, async (context) => {
      const text = (salt: string) =>
        model.tokenize(`${salt}: ${"candle harbor meadow lantern journey river ".repeat(60)}`);
      const [busyPrompt, first, plain, second] = ["busy", "one", "plain", "two"].map(text);
      // The busy generation holds one sequence; its reader waits.
      const busy = context.generate(busyPrompt!, { ...greedy, maxTokens: 50, queueCapacity: 1 });
      const reader = busy[Symbol.asyncIterator]();
      await reader.next();
      const prefillOne = context.prefillPrefix(first!.subarray(0, 256));
      await vi.waitUntil(() => prefillOne.finished, patiently);
      // The only free sequence is held by prefillOne: the plain generation takes it all the same.
      await answer(context.generate(plain!, greedy));
      const prefillTwo = context.prefillPrefix(second!.subarray(0, 256));
      await vi.waitUntil(() => prefillTwo.finished, patiently);
      while (!(await reader.next()).done) {}
      // Now the busy sequence is free: the first follower goes there, not into prefillTwo's cells.
      const one = await answer(context.generate(first!, { ...greedy, afterPrefill: prefillOne }));
      const two = await answer(context.generate(second!, { ...greedy, afterPrefill: prefillTwo }));
      expect(two.result.reusedPromptTokens).toBe(256);
      expect(one.result.sequence).not.toBe(two.result.sequence);
      const alone = await answer(reference.generate(second!, greedy));
      expect(two.tokens).toEqual(alone.tokens);
    });
  });

  it("answers as without it after a cancelled prefill", async () => {
    await withContext({}, async (context) => {
      const prefill = context.prefillPrefix(prompt.subarray(0, 200));
      prefill.cancel();
      prefill.cancel();
      const { tokens } = await run(context, { afterPrefill: prefill });
      expect(tokens).toEqual(expected);
      expect(prefill.finished).toBe(true);
    });
  });

  it("ends a generation aborted while it waits for its prefill, and one whose context is disposed", async () => {
    await withContext({}, async (context) => {
      const controller = new AbortController();
      const prefill = context.prefillPrefix(prompt.subarray(0, 200));
      const waiting = run(context, { afterPrefill: prefill, signal: controller.signal });
      controller.abort();
      await expect(waiting).rejects.toThrow(GenerationAbortedError);
      // Its follower gone, the prefill stops too.
      await vi.waitUntil(() => prefill.finished, patiently);
    });
    const context = await model.createContext({ contextSize: 1024, threads: 1 });
    const prefill = context.prefillPrefix(prompt);
    const waiting = run(context, { afterPrefill: prefill });
    context.dispose();
    await expect(waiting).rejects.toMatchObject({ name: "NativeDecodeError", code: "ERR_CONTEXT_DISPOSED" });
    expect(prefill.finished).toBe(true);
    expect(() => context.prefillPrefix(prompt)).toThrow(LlamaDisposedError);
  });

  it("refuses a prefill of another context, a wrong value, and prompts it cannot take", async () => {
    await withContext({ contextSize: 256 }, async (context) => {
      const elsewhere = reference.prefillPrefix(prompt.subarray(0, 8));
      expect(() => context.generate(prompt.subarray(0, 20), { ...greedy, afterPrefill: elsewhere })).toThrow(
        IncompatibleOptionsError,
      );
      expect(() =>
        context.generate(prompt.subarray(0, 20), { ...greedy, afterPrefill: {} as never }),
      ).toThrow(/afterPrefill/);
      expect(() => context.prefillPrefix([])).toThrow(InvalidOptionError);
      expect(() => context.prefillPrefix([model.vocabSize])).toThrow(/promptTokens\[0\]/);
      expect(() => context.prefillPrefix(prompt)).toThrow(ContextOverflowError);
      await vi.waitUntil(() => elsewhere.finished, patiently);
    });
  });
});

// The raw addon's `after` option, which the TypeScript layer never passes wrongly: anything but a job of
// this context must be refused, never unwrapped. A context given a job's prototype passed InstanceOf and
// was unwrapped as a job (ASan: a heap overflow; without it, a GGML assertion that ended the process).
describe("the addon's `after` option", () => {
  it("refuses every object that is not a job of this context, whatever its prototype", async () => {
    const raw = await loadRawTinyModel();
    const context = await createRawContext(raw);
    const other = await createRawContext(raw);
    const options = {
      tokens: new Int32Array([1, 2, 3, 4, 5, 6, 7, 8]),
      greedy: true,
      seed: 1,
      maxTokens: 2,
      ignoreEos: true,
      promptLogprobs: false,
      reusePrefix: true,
      queueCapacity: 4,
    };
    try {
      const job = context.generate({ ...options, prefillOnly: true });
      const jobPrototype = Object.getPrototypeOf(job) as object;
      const impostors: Record<string, unknown> = {
        "a plain object": {},
        "a number": 42,
        "an object made from a job's prototype": Object.create(jobPrototype),
        "a proxy of a job": new Proxy(job, {}),
        "another context given a job's prototype": Object.setPrototypeOf(
          await createRawContext(raw),
          jobPrototype,
        ),
        "a job of another context": other.generate({ ...options, prefillOnly: true }),
      };
      for (const [name, after] of Object.entries(impostors)) {
        expect(() => context.generate({ ...options, after } as never), name).toThrow(
          expect.objectContaining({ code: "ERR_INVALID_ARGUMENT" }),
        );
      }
      // A real job of this context is taken.
      const follower = context.generate({ ...options, after: job });
      for (;;) if ((await follower.pull(16)).done) break;
      expect(follower.getStats().finishReason).toBe("length");
    } finally {
      context.dispose();
      other.dispose();
      raw.dispose();
    }
  });
});
