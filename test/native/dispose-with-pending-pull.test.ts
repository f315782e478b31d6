// Found by the schedule fuzzer on the first hardening fixes: a decode step that queued an event (and
// cleared its pull's waiting flag) and then met the shutdown of context.dispose() left without sending
// the notification, and dispose() only settled pulls whose flag was still set: the pull stayed pending
// forever. The afterStep hook holds the decode thread between the step and its notifications while
// dispose() comes in, so before the fix this hung every time.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NativeModel, NativeTestHooks } from "../../src/backends/llamacpp/addon-types.js";
import { useHooksAddon } from "./hooks-addon.js";
import { createRawContext, loadRawTinyModel } from "./tiny-model.js";

describe("context.dispose() while a step's notification is on its way", () => {
  let hooks: NativeTestHooks;
  let model: NativeModel;
  beforeAll(async () => {
    hooks = useHooksAddon();
    model = await loadRawTinyModel();
  });
  afterAll(() => {
    hooks.set("afterStep", 0);
    model.dispose();
  });

  it("settles the waiting pull, with the events decoded before", async () => {
    const context = await createRawContext(model);
    // Held 3 s: the dispose below must come while the thread waits. With 150 ms, and once with 1 s (a
    // clean-clone CI run on this 2-core machine, 2026-12-02), a loaded machine let the wait end first, and
    // the step's own notification settled the pull (one event, not done) before the dispose could. The
    // dispose joins the thread, so the test pays the whole hold.
    hooks.set("afterStep", 3_000_000);
    const generation = context.generate({
      tokens: model.tokenize("Once upon a time", true, false),
      greedy: true,
      seed: 0,
      maxTokens: 8,
      ignoreEos: true,
      promptLogprobs: false,
      reusePrefix: false,
      queueCapacity: 4,
    });
    const pull = generation.pull(4);
    // Wait (by the engine's own counter, not a fixed time: sanitizer builds are slow) until the first
    // step decoded the prompt and sampled; the thread then waits 1 s before its notifications.
    const promptLength = model.tokenize("Once upon a time", true, false).length;
    for (let poll = 0; poll < 2000 && context.getCounters().promptTokensDecoded < promptLength; poll++) {
      await sleep(1);
    }
    context.dispose();
    hooks.set("afterStep", 0);
    const batch = await Promise.race([pull, sleep(5_000, "hang" as const)]);
    expect(batch).not.toBe("hang");
    if (batch === "hang") return;
    expect(batch.count).toBe(1);
    expect(batch.done).toBe(true);
    expect(generation.getStats().errorCode).toBe("ERR_CONTEXT_DISPOSED");
  });
});
