// Leaving a `for await` over a thunk early (break) cancels the generation. The thunk's usage and
// finish reason used to arrive only when the native stream settled, ~200 ms later, so code right
// after the loop read null. They are set by the time the loop exits.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock } from "../../src/core/cblock.js";
import type { ModelOptions } from "../../src/core/model-options.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";

let backend: LlamaCppBackend;
beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 512 });
});
afterAll(() => backend.dispose());

describe("metadata after break", () => {
  test("usage and finishReasons are set when the loop exits", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Tell me a story"), new SimpleContext(), {
      modelOptions: { maxNewTokens: 200, seed: 3, ignoreEos: true } as ModelOptions,
    });
    let deltas = 0;
    for await (const _delta of thunk) if (++deltas === 3) break;
    expect(thunk.generation.finishReasons).toEqual(["abort"]);
    expect(thunk.generation.usage).not.toBeNull();
    expect(thunk.generation.usage!.completionTokens).toBeGreaterThanOrEqual(3);
    expect(thunk.generation.usage!.totalTokens).toBe(
      thunk.generation.usage!.promptTokens + thunk.generation.usage!.completionTokens,
    );
  });

  test("the same after aclose()", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Tell me a story"), new SimpleContext(), {
      modelOptions: { maxNewTokens: 200, seed: 3, ignoreEos: true } as ModelOptions,
    });
    await thunk.astream();
    await thunk.aclose();
    expect(thunk.generation.finishReasons).toEqual(["abort"]);
    expect(thunk.generation.usage?.completionTokens).toBeGreaterThanOrEqual(1);
  });

  // The documented relation (docs/core.md, "Stream parts"): usage.completionTokens counts the tokens the
  // backend took from the decoder, what the generation cost; after a cancel it can exceed the tokens whose
  // text and logits reached the thunk (they were queued ahead of the reader), without one they are equal.
  test("usage counts decoded tokens: equal to the delivered steps without a cancel, at least them after", async () => {
    const options = { maxNewTokens: 40, seed: 3, ignoreEos: true, logits: 1 } as ModelOptions;
    const whole = await backend.generateFromContext(new CBlock("Tell me a story"), new SimpleContext(), {
      modelOptions: options,
    });
    await whole.thunk.avalue();
    expect(whole.thunk.generation.usage?.completionTokens).toBe(40);
    expect(whole.thunk.generation.logits?.steps).toHaveLength(40);

    const stopped = await backend.generateFromContext(new CBlock("Tell me a story"), new SimpleContext(), {
      modelOptions: { ...options, stopSequences: ["e"] } as ModelOptions,
    });
    await stopped.thunk.avalue();
    expect(stopped.thunk.generation.finishReasons).toEqual(["stop"]);
    expect(stopped.thunk.generation.usage?.completionTokens).toBe(
      stopped.thunk.generation.logits?.steps.length,
    );

    for (const cancel of ["before reading", "while paused"] as const) {
      const { thunk } = await backend.generateFromContext(
        new CBlock("Tell me a story"),
        new SimpleContext(),
        {
          modelOptions: { ...options, maxNewTokens: 400 } as ModelOptions,
        },
      );
      if (cancel === "while paused") {
        await thunk.astream();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await thunk.aclose();
      const usage = thunk.generation.usage!.completionTokens;
      const delivered = thunk.generation.logits?.steps.length ?? 0;
      expect(usage, cancel).toBeGreaterThanOrEqual(delivered);
      expect(usage, cancel).toBeLessThan(400);
    }
  }, 60_000);
});
