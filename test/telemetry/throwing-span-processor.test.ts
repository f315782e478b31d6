// Telemetry runs after the native generation has started (its bookkeeping then overlaps the prompt's
// decoding). A span processor that throws (a user's broken exporter set-up) must then still leave nothing
// running: the call fails as it did before, and the backend's only sequence is free for the next call.
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock, HookRegistry } from "../../src/core/index.js";
import { ChatContext, SimpleContext } from "../../src/stdlib/index.js";

let failing = false;
const throwingProcessor: SpanProcessor = {
  onStart() {
    if (failing) throw new Error("the span processor broke");
  },
  onEnd() {},
  forceFlush: async () => {},
  shutdown: async () => {},
};
let backend: LlamaCppBackend;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [throwingProcessor] }));
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256 });
});

afterAll(async () => {
  await backend?.dispose();
  trace.disable();
  context.disable();
});

/** The next call's answer, or a timeout: a run left behind holds the only sequence. */
async function nextCallAnswers(): Promise<string> {
  const [thunk] = await backend.generateFromRaw([new CBlock("hi")], new SimpleContext(), {
    modelOptions: { maxNewTokens: 2 },
  });
  return Promise.race([
    thunk!.avalue().then(() => "answered"),
    new Promise<string>((resolve) => setTimeout(() => resolve("still waiting after 5 s"), 5_000)),
  ]);
}

describe("a span processor that throws", () => {
  it("fails a raw call and leaves no generation running", async () => {
    failing = true;
    await expect(
      backend.generateFromRaw([new CBlock("One, two,")], new SimpleContext(), {
        modelOptions: { maxNewTokens: 200 },
      }),
    ).rejects.toThrow("the span processor broke");
    failing = false;
    await expect.poll(() => backend.context.runningGenerations, { timeout: 2_000 }).toBe(0);
    expect(await nextCallAnswers()).toBe("answered");
  });

  it("fails a chat call and leaves no generation running", async () => {
    failing = true;
    await expect(
      backend.generateFromContext(new CBlock("Count."), new ChatContext(), {
        modelOptions: { maxNewTokens: 200 },
      }),
    ).rejects.toThrow("the span processor broke");
    failing = false;
    await expect.poll(() => backend.context.runningGenerations, { timeout: 2_000 }).toBe(0);
    expect(await nextCallAnswers()).toBe("answered");
  });
});

describe("a generationPostCall hook that throws", () => {
  it("fails the call and stops the generation it started", async () => {
    const hooks = new HookRegistry();
    hooks.on("generationPostCall", () => {
      throw new Error("the hook broke");
    });
    const hooked = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256, hooks });
    try {
      await expect(
        hooked.generateFromContext(new CBlock("Count."), new ChatContext(), {
          modelOptions: { maxNewTokens: 200 },
        }),
      ).rejects.toThrow("the hook broke");
      await expect.poll(() => hooked.context.runningGenerations, { timeout: 2_000 }).toBe(0);
    } finally {
      await hooked.dispose();
    }
  });
});
