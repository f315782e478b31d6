// A generation aborted inside its prefill leaves the cells it decoded (fewer than its prompt). Sent
// again, the same prompt keeps every one of them, so it belongs to that sequence: it takes it in place
// rather than an empty one plus a copy. The afterStep hook slows each 16-token prefill step so that the
// abort lands mid-prefill every time.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NativeTestHooks } from "../../src/backends/llamacpp/addon-types.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { GenerationAbortedError } from "../../src/core/errors/generation-aborted-error.js";
import { useHooksAddon } from "./hooks-addon.js";
import { loadTinyModel } from "./tiny-model.js";

describe("a prompt sent again after its prefill was aborted", () => {
  let hooks: NativeTestHooks;
  let model: LlamaModel;
  beforeAll(async () => {
    hooks = useHooksAddon();
    model = await loadTinyModel();
  });
  afterAll(() => {
    hooks.set("afterStep", 0);
    model.dispose();
  });

  it("takes the sequence holding its decoded cells, though another is empty", async () => {
    const context = await model.createContext({
      contextSize: 512,
      sequences: 2,
      threads: 1,
      prefillChunkSize: 16,
    });
    try {
      const prompt = model.tokenize("a river of stones and gardens, told slowly ".repeat(12));
      expect(prompt.length).toBeGreaterThan(100);
      hooks.set("afterStep", 20_000);
      const controller = new AbortController();
      const stream = context.generate(prompt, { temperature: 0, maxTokens: 4, signal: controller.signal });
      const collected = stream.collect().catch((error: unknown) => error);
      for (let poll = 0; poll < 5000 && context.counters.promptTokensDecoded < 32; poll++) await sleep(1);
      controller.abort();
      expect(GenerationAbortedError.isInstance(await collected)).toBe(true);
      hooks.set("afterStep", 0);
      const kept = [0, 1].map((sequence) => context.sequenceTokens(sequence).length);
      const first = kept.findIndex((length) => length > 0);
      expect(kept[first]).toBeGreaterThanOrEqual(32);
      expect(kept[first]).toBeLessThan(prompt.length);
      const again = await context.generate(prompt, { temperature: 0, maxTokens: 4 }).collect();
      expect(again.sequence).toBe(first);
      expect(again.reusedPromptTokens).toBe(kept[first]);
      expect(context.sequenceTokens(1 - first)).toHaveLength(0);
    } finally {
      context.dispose();
    }
  });
});
