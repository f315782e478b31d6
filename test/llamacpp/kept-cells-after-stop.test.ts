// Defect 9 of the native hardening: a stop sequence or a `break` ends a generation by aborting it, and
// an abort used to wipe the sequence's KV cells, so the next chat turn prefilled its whole history
// again (49 reused prompt tokens after a normal finish, 0 after a stop). The cells of everything that
// was decoded now stay, and the next turn reuses them.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import type { Context } from "../../src/core/context.js";
import type { ModelOptions } from "../../src/core/model-options.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";

let backend: LlamaCppBackend;
beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 512 });
});
afterAll(() => backend.dispose());

const sampling = { maxNewTokens: 24, seed: 5, temperature: 0.7 } as const;

async function turn(prompt: string, context: Context, modelOptions: ModelOptions & Record<string, unknown>) {
  const { thunk, context: next } = await backend.generateFromContext(new CBlock(prompt), context, {
    modelOptions,
  });
  await thunk.avalue();
  const output = thunk.generateLog?.modelOutput as { reusedPromptTokens: number | null } | undefined;
  return { thunk, next, reused: output?.reusedPromptTokens ?? null };
}

describe("KV cells after a generation that was stopped early", () => {
  test("a stop sequence keeps the history's cells for the next chat turn", async () => {
    const full = await turn("Write something", new ChatContext(), sampling);
    const stop = full.thunk.value!.slice(6, 10);
    expect(stop.length).toBe(4);
    const stopped = await turn("Write something", new ChatContext(), { ...sampling, stopSequences: [stop] });
    expect(stopped.thunk.generation.finishReasons).toEqual(["stop"]);
    const firstPrompt = stopped.thunk.generation.usage!.promptTokens;
    const second = await turn("And then?", stopped.next, { maxNewTokens: 4, temperature: 0 });
    // The whole first prompt at least (and the answer's tokens as far as they re-tokenize alike).
    expect(second.reused).toBeGreaterThanOrEqual(firstPrompt);
  });

  test("leaving a stream with `break` keeps the cells too", async () => {
    const reference = await turn("Tell me a story", new ChatContext(), { ...sampling, maxNewTokens: 1 });
    const firstPrompt = reference.thunk.generation.usage!.promptTokens;
    const { thunk, context } = await backend.generateFromContext(
      new CBlock("Tell me a story"),
      new ChatContext(),
      {
        modelOptions: { ...sampling, maxNewTokens: 200 },
      },
    );
    let deltas = 0;
    for await (const _ of thunk) if (++deltas === 3) break;
    const second = await turn("Go on.", context, { maxNewTokens: 4, temperature: 0 });
    expect(second.reused).toBeGreaterThanOrEqual(firstPrompt);
  });
});
