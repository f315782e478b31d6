// Spans and GenAI metrics through @opentelemetry/api, read back with the SDK's in-memory exporters: the local
// backend on the generated tiny model (one thread), the OpenAI backend against the loopback fault server.
import { type Context, context, metrics, type SpanOptions, type Tracer, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { OpenAIBackend } from "../../src/backends/openai/index.js";
import { CBlock, ComputedModelOutputThunk, HookRegistry, ModelOutputThunk } from "../../src/core/index.js";
import {
  ChatContext,
  RejectionSamplingStrategy,
  req,
  SimpleContext,
  simpleValidate,
  validate,
} from "../../src/stdlib/index.js";
import { type FaultServer, startFaultServer } from "../helpers/fault-server.js";
import { withHookedBackend } from "./telemetry-fixtures.js";

const spans = new InMemorySpanExporter();
/** The start time the last span of each name was asked to have, as given to startSpan. */
const requestedStartTimes = new Map<string, unknown>();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
let backend: LlamaCppBackend;
let server: FaultServer;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  // The SDK's own provider, noting the start time each span is asked for (what the backend passes).
  trace.setGlobalTracerProvider({
    getTracer(name, version, options) {
      const tracer = provider.getTracer(name, version, options);
      return Object.assign(Object.create(tracer) as Tracer, {
        startSpan(spanName: string, spanOptions?: SpanOptions, parent?: Context) {
          requestedStartTimes.set(spanName, spanOptions?.startTime);
          return tracer.startSpan(spanName, spanOptions, parent);
        },
      });
    },
  });
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 2 });
  server = await startFaultServer();
});

afterAll(async () => {
  await backend?.dispose();
  await server?.close();
  trace.disable();
  metrics.disable();
  context.disable();
});

beforeEach(async () => {
  await collectMetrics();
  spans.reset();
});

/** The metrics recorded since the last call (delta temporality), by instrument name. */
async function collectMetrics(): Promise<Map<string, DataPoint<Histogram>[]>> {
  metricExporter.reset();
  await reader.forceFlush();
  const byName = new Map<string, DataPoint<Histogram>[]>();
  for (const resource of metricExporter.getMetrics()) {
    for (const scope of resource.scopeMetrics) {
      for (const metric of scope.metrics) {
        const points = byName.get(metric.descriptor.name) ?? [];
        points.push(...(metric.dataPoints as DataPoint<Histogram>[]));
        byName.set(metric.descriptor.name, points);
      }
    }
  }
  return byName;
}

const named = (name: string): ReadableSpan[] => spans.getFinishedSpans().filter((span) => span.name === name);

describe("OpenTelemetry on the local backend", () => {
  it("a sampling run: one sampling span, one chat span per sample under it, one validation span per check", async () => {
    const never = req(
      "never passes",
      simpleValidate(() => false),
    );
    const result = await new RejectionSamplingStrategy({ loopBudget: 2 }).sample(
      new CBlock("Name a colour."),
      new SimpleContext(),
      backend,
      [never],
      { modelOptions: { maxNewTokens: 3, seed: 7, temperature: 0.5 } },
    );
    expect(result.success).toBe(false);

    const [sampling] = named("sampling");
    expect(sampling).toBeDefined();
    expect(sampling!.attributes).toMatchObject({
      "tessera.sampling.strategy_type": "RejectionSamplingStrategy",
      "tessera.sampling.loop_budget": 2,
      "tessera.sampling.requirement_count": 1,
      "tessera.sampling.success": false,
      "tessera.sampling.iterations_used": 2,
      "tessera.sampling.failure_reason": "budget exhausted after 2 sample(s)",
      "gen_ai.request.model": "tiny",
      "gen_ai.response.finish_reasons": ["length"],
    });
    expect(sampling!.instrumentationScope.name).toBe("tessera.application");

    // GenAI semconv names a client span "{gen_ai.operation.name} {gen_ai.request.model}".
    const chats = named("chat tiny");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.instrumentationScope.name).toBe("tessera.backend");
      expect(chat.parentSpanContext?.spanId).toBe(sampling!.spanContext().spanId);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "llama.cpp",
        "gen_ai.request.model": "tiny",
        "gen_ai.response.model": "tiny",
        "gen_ai.request.max_tokens": 3,
        "gen_ai.request.temperature": 0.5,
        "gen_ai.request.seed": 7,
        "gen_ai.request.stream": true,
        "gen_ai.response.finish_reasons": ["length"],
        "gen_ai.usage.output_tokens": 3,
        "tessera.action_type": "CBlock",
      });
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(chat.attributes["gen_ai.response.time_to_first_chunk"]).toBeGreaterThan(0);
    }

    const validations = named("validation");
    expect(validations).toHaveLength(2);
    expect(validations[0]!.parentSpanContext?.spanId).toBe(sampling!.spanContext().spanId);
    expect(validations[0]!.attributes).toMatchObject({
      "tessera.validation.requirement_count": 1,
      "tessera.validation.passed": false,
      "tessera.validation.passed_count": 0,
      "tessera.validation.failed_count": 1,
    });

    const recorded = await collectMetrics();
    const duration = recorded.get("gen_ai.client.operation.duration") ?? [];
    expect(duration.reduce((sum, point) => sum + point.value.count, 0)).toBe(2);
    expect(duration[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "llama.cpp",
      "gen_ai.request.model": "tiny",
    });
    const tokens = recorded.get("gen_ai.client.token.usage") ?? [];
    const output = tokens.find((point) => point.attributes["gen_ai.token.type"] === "output");
    expect(output?.value).toMatchObject({ count: 2, sum: 6 });
    expect(tokens.find((point) => point.attributes["gen_ai.token.type"] === "input")?.value.count).toBe(2);
    const firstChunk = recorded.get("gen_ai.client.operation.time_to_first_chunk") ?? [];
    expect(firstChunk.reduce((sum, point) => sum + point.value.count, 0)).toBe(2);
  });

  it("a generation left by break ends its span with finish reason abort and tessera.cancelled", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Count."), new ChatContext(), {
      modelOptions: { maxNewTokens: 50 },
    });
    for await (const _delta of thunk) break;
    const [chat] = named("chat tiny");
    expect(chat?.attributes).toMatchObject({
      "gen_ai.response.finish_reasons": ["abort"],
      "tessera.cancelled": true,
    });
    expect(chat?.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
  });

  it("spans start when the call does, though they are made once the generation has started", async () => {
    // The backend observes its call after the native run starts (that bookkeeping then overlaps the
    // prompt's decoding); the span must still cover the whole call, its preparation included. The start
    // time goes to the SDK as a performance.now() value, which it maps as it maps the times it takes.
    const calledAt = performance.now();
    const [thunk] = await backend.generateFromRaw([new CBlock("One, two,")], new SimpleContext(), {
      modelOptions: { maxNewTokens: 2 },
    });
    await thunk!.avalue();
    const requested = requestedStartTimes.get("text_completion tiny");
    expect(typeof requested).toBe("number");
    // requestStartedAt: performance.now() as the backend began preparing (before tokenizing).
    expect(requested as number).toBeGreaterThanOrEqual(calledAt);
    expect(requested as number).toBeLessThanOrEqual(thunk!.generation.timings!.requestStartedAt!);
    const [span] = named("text_completion tiny");
    const ms = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
    expect(ms(span!.endTime)).toBeGreaterThan(ms(span!.startTime));

    // A refused call (an output past the context, refused in microseconds) still gets its span, failed,
    // ending after it starts, with its exception event between the two: all on one clock.
    for (let attempt = 0; attempt < 20; attempt++) {
      spans.reset();
      await expect(
        backend.generateFromRaw([new CBlock("One")], new SimpleContext(), {
          modelOptions: { maxNewTokens: 1_000_000 },
        }),
      ).rejects.toThrow(/context/i);
      const [refused] = named("text_completion tiny");
      expect(refused?.status.code).toBe(2);
      expect(ms(refused!.endTime)).toBeGreaterThan(ms(refused!.startTime));
      const [event] = refused!.events;
      expect(event?.name).toBe("exception");
      expect(ms(event!.time)).toBeGreaterThanOrEqual(ms(refused!.startTime));
      expect(ms(event!.time)).toBeLessThanOrEqual(ms(refused!.endTime));
    }
  });

  it("a call whose post-call hook throws after its generation finished ends its span as an error", async () => {
    const hooks = new HookRegistry();
    hooks.on("generationPostCall", async ({ thunk }) => {
      await thunk.avalue();
      throw new Error("the hook refused the output");
    });
    await withHookedBackend(hooks, (hooked) =>
      expect(
        hooked.generateFromContext(new CBlock("One, two,"), new ChatContext(), {
          modelOptions: { maxNewTokens: 2 },
        }),
      ).rejects.toThrow("the hook refused the output"),
    );
    const [chat] = named("chat tiny");
    expect(chat?.status.code).toBe(2);
    expect(chat?.status.message).toBe("the hook refused the output");
    expect(chat?.attributes["error.type"]).toBe("Error");
  });

  it("backend spans sit inside their parent span, on the SDK's clock", async () => {
    const parentTracer = trace.getTracer("test");
    await parentTracer.startActiveSpan("parent", async (parent) => {
      const [thunk] = await backend.generateFromRaw([new CBlock("One, two,")], new SimpleContext(), {
        modelOptions: { maxNewTokens: 2 },
      });
      await thunk!.avalue();
      parent.end();
    });
    const [parent] = named("parent");
    const [child] = named("text_completion tiny");
    expect(child!.parentSpanContext?.spanId).toBe(parent!.spanContext().spanId);
    const ms = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
    // The SDK anchors each span's clock to Date.now() (whole milliseconds) when it starts: allow that.
    expect(ms(child!.startTime)).toBeGreaterThanOrEqual(ms(parent!.startTime) - 1);
    expect(ms(child!.endTime)).toBeLessThanOrEqual(ms(parent!.endTime) + 1);
  });

  it("validate() outside a strategy makes its own validation span", async () => {
    const output = ComputedModelOutputThunk.from(new ModelOutputThunk("an answer"));
    await validate(
      [
        req(
          "passes",
          simpleValidate(() => true),
        ),
      ],
      new ChatContext(),
      backend,
      { output },
    );
    expect(named("validation")[0]?.attributes).toMatchObject({
      "tessera.validation.passed": true,
      "tessera.validation.passed_count": 1,
    });
  });
});

describe("OpenTelemetry on the OpenAI backend", () => {
  it("a streamed chat: span with provider, server, response model and id, usage; the three metrics", async () => {
    const baseUrl = server.baseUrl("ok");
    const openai = new OpenAIBackend({ model: "remote-model", baseUrl });
    const { thunk } = await openai.generateFromContext(new CBlock("Hi"), new ChatContext());
    expect(await thunk.avalue()).toBe("Hello world");
    const [chat] = named("chat remote-model");
    const port = Number(new URL(server.url).port);
    expect(chat?.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "remote-model",
      "gen_ai.response.model": "fault-model",
      "gen_ai.response.id": "chatcmpl-fault",
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": 5,
      "gen_ai.usage.output_tokens": 2,
      "server.address": "127.0.0.1",
      "server.port": port,
    });
    const recorded = await collectMetrics();
    const duration = recorded.get("gen_ai.client.operation.duration")!;
    expect(duration[0]!.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.response.model": "fault-model",
      "server.address": "127.0.0.1",
    });
    const tokens = recorded.get("gen_ai.client.token.usage")!;
    expect(tokens.find((point) => point.attributes["gen_ai.token.type"] === "input")?.value.sum).toBe(5);
    expect(tokens.find((point) => point.attributes["gen_ai.token.type"] === "output")?.value.sum).toBe(2);
    expect(recorded.get("gen_ai.client.operation.time_to_first_chunk")?.[0]?.value.count).toBe(1);
  });

  // generateFromRaw on this backend sends /chat/completions, so its spans say chat, not text_completion.
  it("a raw generation is tagged with the operation it performs: chat", async () => {
    const openai = new OpenAIBackend({ model: "remote-model", baseUrl: server.baseUrl("ok") });
    const [thunk] = await openai.generateFromRaw([new CBlock("Hi")], new ChatContext());
    await thunk!.avalue();
    const [chat] = named("chat remote-model");
    expect(chat?.attributes["gen_ai.operation.name"]).toBe("chat");
    expect(named("text_completion remote-model")).toHaveLength(0);
  });

  it("a refused request ends its span as an error with error.type, and records the duration with it", async () => {
    const openai = new OpenAIBackend({ model: "remote-model", baseUrl: server.baseUrl("bad-request") });
    const { thunk } = await openai.generateFromContext(new CBlock("Hi"), new ChatContext());
    await expect(thunk.avalue()).rejects.toThrow();
    const [chat] = named("chat remote-model");
    expect(chat?.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(chat?.attributes["error.type"]).toBe("OpenAIHttpError");
    const recorded = await collectMetrics();
    expect(recorded.get("gen_ai.client.operation.duration")?.[0]?.attributes["error.type"]).toBe(
      "OpenAIHttpError",
    );
    expect(recorded.get("gen_ai.client.operation.time_to_first_chunk")).toBeUndefined();
  });
});
