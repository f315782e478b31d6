// A pull that fails while it hands a batch to JavaScript (std::bad_alloc, injected by the test build after
// the batch's full rows left their slots): the events of that batch cannot be read again, so the pull
// fails with ERR_OUT_OF_MEMORY, the generation stops, and the stream ends with a typed error that keeps
// the text before it. Before, the exception escaped the N-API callback (std::terminate, the process gone)
// or was swallowed with the pull's promise never settled.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { NativeTestHooks } from "../../src/backends/llamacpp/addon-types.js";
import { NativeDecodeError } from "../../src/backends/llamacpp/errors/native-decode-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { useHooksAddon } from "./hooks-addon.js";
import { createRawContext, loadRawTinyModel, loadTinyModel } from "./tiny-model.js";

// A greedy raw-addon generation with the raw row captured in full, on its own model and context.
async function rawFullGeneration(maxTokens: number, queueCapacity: number) {
  const raw = await loadRawTinyModel();
  const rawContext = await createRawContext(raw);
  const job = rawContext.generate({
    tokens: raw.tokenize("Once upon a time", true, false),
    greedy: true,
    seed: 0,
    maxTokens,
    ignoreEos: true,
    promptLogprobs: false,
    reusePrefix: false,
    queueCapacity,
    rawFull: true,
  });
  return { raw, rawContext, job };
}

describe("a pull that fails while handing a batch over", () => {
  let hooks: NativeTestHooks;
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  const options = {
    temperature: 0,
    maxTokens: 24,
    ignoreEos: true,
    reusePrefix: false,
    rawLogits: "full",
    logits: "full",
    queueCapacity: 4,
  } as const;
  beforeAll(async () => {
    hooks = useHooksAddon();
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 256, batchSize: 64, sequences: 1, threads: 1 });
    prompt = model.tokenize("Once upon a time");
  });
  afterAll(() => model.dispose());
  // A hook that did not fire (no pull took events) must not fail a later test's pull.
  afterEach(() => hooks.set("throwInTakeBatch", 0));

  it("ends the stream with ERR_OUT_OF_MEMORY and the text before, and the context goes on", async () => {
    const reference = await context.generate(prompt, options).collect();
    hooks.set("throwInTakeBatch", 2);
    const stream = context.generate(prompt, options);
    let read = "";
    const error = await (async () => {
      for await (const event of stream) read += event.text;
    })().catch((caught: unknown) => caught);
    expect(NativeDecodeError.isInstance(error)).toBe(true);
    const failure = error as NativeDecodeError;
    expect(failure.code).toBe("ERR_OUT_OF_MEMORY");
    expect(failure.message).toContain("Capture fewer logits");
    expect(failure.partialText).toBe(read);
    expect(read.length).toBeGreaterThan(0);
    expect(reference.text.startsWith(read)).toBe(true);
    await expect(stream.result).rejects.toBe(error);
    expect((await context.generate(prompt, options).collect()).text).toBe(reference.text);
  });

  it("raw addon: the failed pull rejects, and the next pulls reach the end", async () => {
    const { raw, rawContext, job } = await rawFullGeneration(24, 4);
    const first = await job.pull(2);
    expect(first.count).toBeGreaterThan(0);
    hooks.set("throwInTakeBatch", 1);
    // Wait until events are there, so the hooked pull takes some (it fires only on a pull that takes events).
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(job.pull(4)).rejects.toMatchObject({ code: "ERR_OUT_OF_MEMORY" });
    expect(hooks.get("throwInTakeBatch")).toBe(0);
    let done = false;
    for (let pulls = 0; pulls < 100 && !done; pulls++) done = (await job.pull(4)).done;
    expect(done).toBe(true);
    expect(job.getStats().finishReason).toBe("abort");
    expect(job.getStats().errorCode).toBe("ERR_OUT_OF_MEMORY");
    rawContext.dispose();
    raw.dispose();
  });

  it("raw addon: a dropped last batch shows in the stats of a generation that had finished", async () => {
    const { raw, rawContext, job } = await rawFullGeneration(3, 8);
    for (let waited = 0; waited < 100 && !job.getStats().finished; waited++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    hooks.set("throwInTakeBatch", 1);
    await expect(job.pull(8)).rejects.toMatchObject({ code: "ERR_OUT_OF_MEMORY" });
    expect((await job.pull(8)).done).toBe(true);
    // The generation ended by its length, but its events never arrived: the stats say so.
    expect(job.getStats()).toMatchObject({ finishReason: "length", errorCode: "ERR_OUT_OF_MEMORY" });
    rawContext.dispose();
    raw.dispose();
  });

  it("a failure while a stream is drained after its reader left still waits for the end", async () => {
    const stream = context.generate(prompt, { ...options, maxTokens: 48 });
    let read = 0;
    for await (const _ of stream) {
      if (++read === 2) {
        // The next pull is the drain's; the wait lets the decode thread fill the queue, so that pull takes
        // events and the hook fires.
        hooks.set("throwInTakeBatch", 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
        break;
      }
    }
    const result = await stream.result;
    expect(hooks.get("throwInTakeBatch")).toBe(0);
    expect(result.finishReason).toBe("abort");
    // Stats of a job that had finished, not of one still running (generatedTokens 0, timings null).
    expect(result.generatedTokens).toBeGreaterThanOrEqual(2);
    expect(result.timings.decodeMs).not.toBeNull();
    expect(context.counters.liveSequences).toBe(0);
  });
});
