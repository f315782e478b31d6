// LlamaCppBackend's prefill-ahead: a prompt of 1,024 characters or more starts prefilling its first 30%
// while the whole prompt is tokenized, and the generation reuses those cells. It must change when the
// work starts, never what is decoded: every answer is compared with a backend that has it off.
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import type { Context } from "../../src/core/context.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import { InvalidModelOptionError } from "../../src/core/errors/invalid-model-option-error.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";

/** vi.waitUntil's default second is short for a loaded 2-core machine (or a sanitizer build). */
const patiently = { timeout: 10_000, interval: 5 };

const settings = { threads: 1, sequences: 2, contextSize: 1024, flashAttention: "off" } as const;
let on: LlamaCppBackend;
let off: LlamaCppBackend;
beforeAll(async () => {
  on = await LlamaCppBackend.create(settings);
  off = await LlamaCppBackend.create({ ...settings, prefillAhead: false });
});
afterAll(async () => {
  await on.dispose();
  await off.dispose();
});

const words = "river stone garden letter window morning silver market candle harbor meadow lantern journey";
const longText = (salt: string) => `${salt}: ${`${words} `.repeat(14)}`;
const greedy = { temperature: 0, maxNewTokens: 6, ignoreEos: true } as const;

async function generate(backend: LlamaCppBackend, prompt: string, context: Context = new SimpleContext()) {
  const { thunk, context: next } = await backend.generateFromContext(new CBlock(prompt), context, {
    modelOptions: greedy,
  });
  const text = await thunk.avalue();
  const output = thunk.generateLog?.modelOutput as { reusedPromptTokens: number | null } | undefined;
  return { text, reused: output?.reusedPromptTokens ?? null, next, usage: thunk.generation.usage! };
}

describe("prefill ahead", () => {
  test("a long prompt reuses the cells prefilled ahead and answers as with it off", async () => {
    const prompt = longText("first");
    expect(prompt.length).toBeGreaterThanOrEqual(1024);
    const [withIt, without] = [await generate(on, prompt), await generate(off, prompt)];
    expect(withIt.text).toBe(without.text);
    expect(withIt.usage.promptTokens).toBe(without.usage.promptTokens);
    expect(without.reused).toBeLessThan(8);
    // About 30% of the prompt, cut to a multiple of 256 tokens or left whole below that.
    expect(withIt.reused).toBeGreaterThan(withIt.usage.promptTokens * 0.2);
    expect(withIt.reused).toBeLessThan(withIt.usage.promptTokens * 0.4);
  });

  test("a short prompt is not prefilled ahead", async () => {
    const first = await generate(on, `short one: ${words}`);
    expect(first.reused).toBeLessThan(8);
  });

  test("a chat's next turn keeps its whole history (its start was prefilled already)", async () => {
    const firstTurn = await generate(on, longText("chat"), new ChatContext());
    const nextOn = await generate(on, "And then?", firstTurn.next);
    const firstOff = await generate(off, longText("chat"), new ChatContext());
    const nextOff = await generate(off, "And then?", firstOff.next);
    expect(nextOn.text).toBe(nextOff.text);
    expect(nextOn.reused).toBe(nextOff.reused);
    expect(nextOn.reused).toBeGreaterThanOrEqual(firstTurn.usage.promptTokens);
  });

  test("a prompt refused after its prefill started leaves the backend answering as before", async () => {
    const tooLong = longText("overflow").repeat(6);
    await expect(generate(on, tooLong)).rejects.toThrow(ContextOverflowError);
    const after = await generate(on, longText("after"));
    const reference = await generate(off, longText("after"));
    expect(after.text).toBe(reference.text);
  });

  test("a batch with one bad action starts nothing, its prefills included, and the backend goes on", async () => {
    // The first action's prefill starts; the second is refused after it, which cancels that prefill.
    const refused = [new CBlock(longText("batch a")), new CBlock(longText("too long").repeat(6))];
    await expect(on.generateFromRaw(refused, new SimpleContext(), { modelOptions: greedy })).rejects.toThrow(
      ContextOverflowError,
    );
    await vi.waitUntil(
      () => on.context.counters.liveSequences === 0 && on.context.counters.waiting === 0,
      patiently,
    );
    const actions = [new CBlock(longText("batch a")), new CBlock(longText("batch b"))];
    await expect(
      on.generateFromRaw(actions, new SimpleContext(), {
        // toolChoice is a llama.cpp model option, outside the core ModelOptions type.
        modelOptions: { ...greedy, toolChoice: "required" } as typeof greedy,
      }),
    ).rejects.toThrow(InvalidModelOptionError);
    const thunks = await on.generateFromRaw(actions, new SimpleContext(), { modelOptions: greedy });
    const reference = await off.generateFromRaw(actions, new SimpleContext(), { modelOptions: greedy });
    for (const [index, thunk] of thunks.entries()) {
      expect(await thunk.avalue()).toBe(await reference[index]!.avalue());
    }
  });

  test("prefills of requests arriving together never cut each other's cells: no prompt token decoded twice", async () => {
    // A finished prefill's sequence used to be the cheapest one for the next job (a batch's next prefill,
    // another request), which cut it before its generation was queued: 20-27% more prompt tokens decoded.
    for (const sequences of [1, 4]) {
      const pair = await Promise.all(
        [true, false].map((prefillAhead) =>
          LlamaCppBackend.create({ ...settings, sequences, contextSize: 2048, prefillAhead }),
        ),
      );
      try {
        const decoded: number[] = [];
        for (const backend of pair) {
          for (const round of [1, 2, 3]) {
            const raw = [0, 1, 2, 3].map((index) => new CBlock(longText(`raw ${round} ${index}`)));
            const thunks = await backend.generateFromRaw(raw, new SimpleContext(), { modelOptions: greedy });
            await Promise.all(thunks.map((thunk) => thunk.avalue()));
            await Promise.all(
              [0, 1, 2, 3, 4].map((index) => generate(backend, longText(`concurrent ${round} ${index}`))),
            );
          }
          decoded.push(backend.context.counters.promptTokensDecoded);
        }
        expect(decoded[0], `${sequences} sequence(s): with it on, then off`).toBe(decoded[1]);
      } finally {
        await Promise.all(pair.map((backend) => backend.dispose()));
      }
    }
  });

  test("refuses a prefillAhead that is not a boolean, naming it", () => {
    expect(() => new LlamaCppBackend({ prefillAhead: "yes" as never })).toThrow(/prefillAhead/);
  });
});
