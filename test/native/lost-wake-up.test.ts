// Defect 1 of the native hardening: takeBatch decided whether to wake the decode thread from a read
// taken before it copied the events, but freed the slots later. If the decoder filled the ring and
// parked in between, nothing woke it and the stream hung forever. The takeBatchGap hook holds that gap
// open for 20 ms, far longer than one decode step of the tiny model, so before the fix every run hung.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NativeContext, NativeModel, NativeTestHooks } from "../../src/backends/llamacpp/addon-types.js";
import { useHooksAddon } from "./hooks-addon.js";
import { createRawContext, loadRawTinyModel } from "./tiny-model.js";

/** Resolves with the pull's batch, or with "hang" when nothing arrives within the watchdog's time. */
async function pullOrHang<T>(pull: Promise<T>, milliseconds: number): Promise<T | "hang"> {
  const controller = new AbortController();
  const result = await Promise.race([
    pull,
    sleep(milliseconds, "hang" as const, { signal: controller.signal }),
  ]);
  controller.abort();
  return result;
}

describe("backpressure wake-up between a pull and the decode thread", () => {
  let hooks: NativeTestHooks;
  let model: NativeModel;
  let context: NativeContext;
  beforeAll(async () => {
    hooks = useHooksAddon();
    model = await loadRawTinyModel();
    context = await createRawContext(model, { contextSize: 512 });
  });
  afterAll(() => {
    hooks.set("takeBatchGap", 0);
    context.dispose();
    model.dispose();
  });

  for (const capacity of [2, 4, 8]) {
    it(`never loses the wake-up of a parked sequence (capacity ${capacity}, one event per pull)`, async () => {
      hooks.set("takeBatchGap", 20_000);
      const generation = context.generate({
        tokens: model.tokenize("Once upon a time", true, false),
        greedy: true,
        seed: 0,
        maxTokens: 24,
        ignoreEos: true,
        promptLogprobs: false,
        reusePrefix: false,
        queueCapacity: capacity,
      });
      let received = 0;
      for (;;) {
        const batch = await pullOrHang(generation.pull(1), 5_000);
        if (batch === "hang") {
          generation.abort();
          throw new Error(
            `lost wake-up: no event within 5 s after ${received} of 24 (the decoder stayed parked)`,
          );
        }
        received += batch.count;
        if (batch.done) break;
      }
      expect(received).toBe(24);
      expect(generation.getStats().finishReason).toBe("length");
    });
  }
});
