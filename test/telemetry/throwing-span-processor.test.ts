// Telemetry runs after the native generation has started (its bookkeeping then overlaps the prompt's
// decoding). A span processor that throws (a user's broken exporter set-up) must then still leave nothing
// running: the call fails as it did before, and the backend's only sequence is free for the next call.
import { diag } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock, HookRegistry } from "../../src/core/index.js";
import { ChatContext, SimpleContext } from "../../src/stdlib/index.js";
import {
  collectDiagErrors,
  installGlobalTelemetry,
  removeGlobalTelemetry,
  withHookedBackend,
} from "./telemetry-fixtures.js";

let failing = false;
/** Starts left to fail: the next this many onStart calls throw (after `failing`, which makes all fail). */
let failNextStarts = 0;
let failingOnEnd = false;
let ended = 0;
const throwingProcessor: SpanProcessor = {
  onStart() {
    if (failing) throw new Error("the span processor broke");
    if (failNextStarts > 0) {
      failNextStarts--;
      throw new Error("the span processor broke once");
    }
  },
  onEnd() {
    ended++;
    if (failingOnEnd) throw new Error("onEnd broke");
  },
  forceFlush: async () => {},
  shutdown: async () => {},
};
let backend: LlamaCppBackend;
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});

/** Points of gen_ai.client.operation.duration recorded since the last call. */
async function durationPoints(): Promise<number> {
  metricExporter.reset();
  await reader.forceFlush();
  let count = 0;
  for (const resource of metricExporter.getMetrics()) {
    for (const scope of resource.scopeMetrics) {
      for (const metric of scope.metrics) {
        if (metric.descriptor.name !== "gen_ai.client.operation.duration") continue;
        for (const point of metric.dataPoints) count += (point.value as { count: number }).count;
      }
    }
  }
  return count;
}

beforeAll(async () => {
  installGlobalTelemetry(
    new BasicTracerProvider({ spanProcessors: [throwingProcessor] }),
    new MeterProvider({ readers: [reader] }),
  );
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256 });
});

afterAll(async () => {
  await backend?.dispose();
  removeGlobalTelemetry();
});

/** A chat call that fails with `expected`, after which no generation of `target` is left running. */
async function expectChatCallFails(target: LlamaCppBackend, expected: string): Promise<void> {
  await expect(
    target.generateFromContext(new CBlock("Count."), new ChatContext(), {
      modelOptions: { maxNewTokens: 200 },
    }),
  ).rejects.toThrow(expected);
  await expect.poll(() => target.context.runningGenerations, { timeout: 2_000 }).toBe(0);
}

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
    try {
      await expectChatCallFails(backend, "the span processor broke");
    } finally {
      failing = false;
    }
    expect(await nextCallAnswers()).toBe("answered");
  });
});

describe("a span processor whose onEnd throws", () => {
  it("leaves the call's own error to the caller and still ends every span of a batch", async () => {
    const reported = collectDiagErrors();
    await durationPoints();
    failingOnEnd = true;
    ended = 0;
    try {
      await expect(
        backend.generateFromRaw([new CBlock("a"), new CBlock("b"), new CBlock("c")], new SimpleContext(), {
          modelOptions: { maxNewTokens: 1_000_000 },
        }),
      ).rejects.toThrow(/context/i);
    } finally {
      failingOnEnd = false;
      diag.disable();
    }
    expect(ended).toBe(3);
    // Reported the way OpenTelemetry reports its own failures, once per span; the metrics still recorded.
    expect(reported).toHaveLength(3);
    expect(String(reported[0])).toContain("onEnd broke");
    expect(await durationPoints()).toBe(3);
  });
});

describe("a generationPostCall hook that throws", () => {
  it("fails the call and stops the generation it started", async () => {
    const hooks = new HookRegistry();
    hooks.on("generationPostCall", () => {
      throw new Error("the hook broke");
    });
    await withHookedBackend(hooks, (hooked) => expectChatCallFails(hooked, "the hook broke"));
  });
});

describe("a generationPostCall hook and a generationError hook that both throw", () => {
  it("fail the call once, with no unhandled rejection from stopping its generation", async () => {
    const hooks = new HookRegistry();
    const errors: unknown[] = [];
    hooks.on("generationPostCall", () => {
      throw new Error("the hook broke");
    });
    hooks.on("generationError", ({ error }) => {
      errors.push(error);
      throw new Error("the error hook broke too");
    });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      await withHookedBackend(hooks, async (hooked) => {
        await expectChatCallFails(hooked, "the error hook broke too");
        // Checked before the backend is disposed: a rejection its disposal settled must not hide here.
        await new Promise((resolve) => setTimeout(resolve, 50));
        // The call's failure, once: not also the cancellation of a thunk the caller never received.
        expect(errors).toHaveLength(1);
        expect(String(errors[0])).toContain("the hook broke");
        expect(unhandled).toEqual([]);
      });
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("a span that cannot be made for one action of a batch", () => {
  it("still gives every action a failed span and stops every generation", async () => {
    failNextStarts = 1;
    ended = 0;
    await expect(
      backend.generateFromRaw([new CBlock("a"), new CBlock("b"), new CBlock("c")], new SimpleContext(), {
        modelOptions: { maxNewTokens: 100 },
      }),
    ).rejects.toThrow("the span processor broke once");
    expect(failNextStarts).toBe(0);
    // The first action's span failed to start; its failure span and the other two are made and ended.
    expect(ended).toBe(3);
    await expect.poll(() => backend.context.runningGenerations, { timeout: 2_000 }).toBe(0);
  });
});
