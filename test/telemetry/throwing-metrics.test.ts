// A metrics pipeline that throws (a user's broken exporter set-up) loses its own signal only: the span of the
// call still ends, and the call's outcome is its own. Also an error whose name cannot be read.
import type { MeterProvider } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
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

const spans = new InMemorySpanExporter();
let reported: unknown[] = [];
// A provider whose histograms throw on record, as a broken reader or view can make them.
const throwingMeters = {
  getMeter: () => ({
    createHistogram: () => ({
      record: () => {
        throw new Error("the histogram broke");
      },
    }),
  }),
} as unknown as MeterProvider;
let backend: LlamaCppBackend;

beforeAll(async () => {
  installGlobalTelemetry(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }),
    throwingMeters,
  );
  reported = collectDiagErrors();
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256 });
});

afterAll(async () => {
  await backend?.dispose();
  removeGlobalTelemetry();
});

describe("a metrics pipeline that throws", () => {
  it("leaves the call's answer and its span alone, reported through diag", async () => {
    spans.reset();
    reported.length = 0;
    const [thunk] = await backend.generateFromRaw([new CBlock("One, two,")], new SimpleContext(), {
      modelOptions: { maxNewTokens: 2 },
    });
    expect(await thunk!.avalue()).toBeTypeOf("string");
    await expect.poll(() => spans.getFinishedSpans().length).toBe(1);
    expect(spans.getFinishedSpans()[0]!.status.code).toBe(0);
    expect(String(reported[0])).toContain("the histogram broke");
  });
});

describe("an error whose name cannot be read", () => {
  it("still reaches the caller and the generationError hook, and its span ends", async () => {
    spans.reset();
    const hooks = new HookRegistry();
    const odd = new Error("the real failure");
    Object.defineProperty(odd, "name", {
      get() {
        throw new Error("name getter broke");
      },
    });
    const seen: unknown[] = [];
    hooks.on("generationPostCall", () => {
      throw odd;
    });
    hooks.on("generationError", ({ error }) => {
      seen.push(error);
    });
    const refusal = await withHookedBackend(hooks, (hooked) =>
      hooked
        .generateFromContext(new CBlock("Count."), new ChatContext(), { modelOptions: { maxNewTokens: 2 } })
        .catch((error: unknown) => error),
    );
    expect(refusal).toBe(odd);
    expect(seen).toEqual([odd]);
    const [chat] = spans.getFinishedSpans().filter((span) => span.name === "chat tiny");
    expect(chat?.status.code).toBe(2);
    expect(chat?.attributes["error.type"]).toBe("_OTHER");
  });
});
