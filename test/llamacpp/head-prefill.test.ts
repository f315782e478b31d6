// Prefill while tokenizing (src/backends/llamacpp/head-prefill.ts) on the real addon and tiny model: a long
// prompt's head is prefilled while the rest is tokenized, and the request reuses those cells. The answer
// is the same token for token as without it; short prompts, busy contexts, cached heads and batches skip
// it; a refusal after the head started leaves nothing running.
import { afterEach, describe, expect, it } from "vitest";
import { headCut, headPrefillMinimumCharacters } from "../../src/backends/llamacpp/head-prefill.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { LlamaCppModelOptions } from "../../src/backends/llamacpp/llama-cpp-model-options.js";
import { CBlock } from "../../src/core/cblock.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import type { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";

const backends: LlamaCppBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.dispose();
});

async function backendWith(prefillWhileTokenizing: boolean, sequences = 1, contextSize = 1024) {
  const backend = await LlamaCppBackend.create({
    threads: 1,
    sequences,
    contextSize,
    prefillWhileTokenizing,
  });
  backends.push(backend);
  return backend;
}

const words = "river stone garden letter window morning table bridge cloud forest lamp orchard".split(" ");
/** About `characters` of text unlike any other call's (no prefix to reuse across tests). */
function longText(characters: number, salt: number): string {
  const parts: string[] = [`${salt}:`];
  let length = parts[0]!.length;
  for (let index = 0; length < characters; index++) {
    const word = words[(index * 7 + salt) % words.length]!;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ");
}

/** This backend's own options (rawPrompt, ignoreEos), which the generic ModelOptions type does not list. */
const llamaOptions = (options: LlamaCppModelOptions) => options as never;

function reusedOf(thunk: ModelOutputThunk<unknown>): number {
  const output = thunk.generateLog?.modelOutput as { reusedPromptTokens: number | null } | undefined;
  return output?.reusedPromptTokens ?? -1;
}

async function raw(backend: LlamaCppBackend, text: string, maxNewTokens = 12) {
  const [thunk] = await backend.generateFromRaw([new CBlock(text)], new SimpleContext(), {
    modelOptions: llamaOptions({ maxNewTokens, temperature: 0, rawPrompt: true }),
  });
  await thunk!.avalue();
  return thunk!;
}

describe("prefill while tokenizing", () => {
  it("answers token for token as without it, reusing the head's cells", async () => {
    const text = longText(3000, 1);
    const on = await raw(await backendWith(true), text, 16);
    const off = await raw(await backendWith(false), text, 16);
    expect(on.value).toBe(off.value);
    expect(on.generation.logits).toBeNull();
    expect(on.generation.usage?.promptTokens).toBe(off.generation.usage?.promptTokens);
    // ~1/16 of a 3,000-character text: its head's tokens, less the two dropped at the cut.
    expect(reusedOf(on)).toBeGreaterThan(20);
    expect(reusedOf(off)).toBe(0);
  });

  it("answers a chat turn alike, through the rendered template", async () => {
    const text = longText(2500, 2);
    const turn = async (backend: LlamaCppBackend) => {
      const { thunk } = await backend.generateFromContext(new CBlock(text), new ChatContext(), {
        modelOptions: { maxNewTokens: 12, temperature: 0 },
      });
      await thunk.avalue();
      return thunk;
    };
    const on = await turn(await backendWith(true));
    const off = await turn(await backendWith(false));
    expect(on.value).toBe(off.value);
    expect(reusedOf(on)).toBeGreaterThan(20);
    expect(reusedOf(off)).toBe(0);
  });

  it("skips short prompts, batches and contexts that are busy", async () => {
    const backend = await backendWith(true, 2);
    // A head would be 20 tokens or more; a few shared with the last prompt (BOS, a word) are not one.
    const short = await raw(backend, longText(headPrefillMinimumCharacters - 50, 3));
    expect(reusedOf(short)).toBe(0);
    const batch = await backend.generateFromRaw(
      [new CBlock(longText(2000, 4)), new CBlock(longText(2000, 5))],
      new SimpleContext(),
      { modelOptions: llamaOptions({ maxNewTokens: 4, temperature: 0, rawPrompt: true }) },
    );
    for (const thunk of batch) await thunk.avalue();
    // A batch's first prompt would find its head only if one was prefilled: none is.
    for (const thunk of batch) expect(reusedOf(thunk)).toBeLessThan(8);
    // A generation still running: the next long prompt is not split.
    const [running] = await backend.generateFromRaw([new CBlock(longText(1200, 6))], new SimpleContext(), {
      modelOptions: llamaOptions({ maxNewTokens: 200, temperature: 0, rawPrompt: true, ignoreEos: true }),
    });
    const busy = await raw(backend, longText(2000, 7));
    expect(reusedOf(busy)).toBeLessThan(8);
    await running!.cancelGeneration();
  });

  it("is not started for a head that a sequence holds already (a chat's next turn)", async () => {
    const backend = await backendWith(true);
    const text = longText(2000, 8);
    const first = await raw(backend, text);
    const decodedBefore = backend.context.counters.promptTokensDecoded;
    // The same text again: everything but its last token is in the cells; no head job decodes anything.
    const again = await raw(backend, text);
    expect(reusedOf(again)).toBe(again.generation.usage!.promptTokens - 1);
    expect(backend.context.counters.promptTokensDecoded - decodedBefore).toBe(1);
    expect(first.value).toBe(again.value);
  });

  it("leaves nothing running when the request is refused after its head started", async () => {
    const backend = await backendWith(true, 1, 512);
    // ~1,200 characters: past the minimum, under the untokenized bound, and short enough to fit alone, so
    // only the exact count (after the head started) refuses it with 400 output tokens.
    const text = longText(1200, 9);
    await expect(
      backend.generateFromRaw([new CBlock(text)], new SimpleContext(), {
        modelOptions: llamaOptions({ maxNewTokens: 400, temperature: 0, rawPrompt: true }),
      }),
    ).rejects.toSatisfy((error) => ContextOverflowError.isInstance(error));
    // At once: the refusal waits for the head it started to end.
    expect(backend.context.runningGenerations).toBe(0);
    const after = await raw(backend, longText(1100, 10), 4);
    expect(after.value?.length).toBeGreaterThan(0);
  });

  it("refuses a value that is not a boolean, naming the option", () => {
    expect(() => new LlamaCppBackend({ prefillWhileTokenizing: "yes" as unknown as boolean })).toThrowError(
      /a boolean for prefillWhileTokenizing/,
    );
  });
});

describe("headCut", () => {
  it("cuts ~1/16 of the text at a space, within [256, a quarter]", () => {
    const text = longText(8000, 11);
    const cut = headCut(text);
    expect(cut).toBeGreaterThan(250);
    expect(cut).toBeLessThanOrEqual(500);
    expect(text[cut - 1]).toBe(" ");
    expect(headCut("x".repeat(1100))).toBe(256);
    expect(headCut("x".repeat(20_000))).toBe(1250);
  });

  it("never splits a surrogate pair where there is no space", () => {
    // Each emoji is two UTF-16 units: a cut after an odd count would leave half of one on each side.
    for (const length of [1100, 1101, 4000, 4003]) {
      const text = `${"😀".repeat(length)}`;
      expect(headCut(text) % 2).toBe(0);
    }
  });
});
