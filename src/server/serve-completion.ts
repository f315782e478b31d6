import { randomUUID } from "node:crypto";
import type { FastifyReply } from "fastify";
import type { ModelOutputThunk } from "../core/model-output-thunk.js";
import type { StreamPart } from "../core/stream-part.js";
import { buildCompletionUsage } from "../messages/openai/completion-usage.js";
import { buildToolCalls } from "../messages/openai/tool-calls.js";
import type { ConcurrencyLimiter } from "./concurrency-limiter.js";
import type { FirstTokenMarks, FirstTokenTimings } from "./first-token-timings.js";
import { type OpenAIErrorBody, type ServerLimits, toErrorResponse } from "./openai-error-response.js";
import {
  choiceExtras,
  finishReason,
  type LogprobsRequest,
  type ResponseIdentity,
} from "./response-shapes.js";
import type { ServerMetrics } from "./server-metrics.js";
import { SseWriter } from "./sse-writer.js";
import { StepAligner } from "./step-aligner.js";

/** What a route hands over to serve one completion: how to start it and how its output looks on the wire. */
export interface CompletionPlan {
  route: "chat" | "completions";
  /** The request field that set the output's length (named when only the output does not fit). */
  outputField: "max_tokens" | "max_completion_tokens";
  /** The request field whose schema the backend's grammar was made from, if any (named when it refuses it). */
  grammarField: string | null;
  stream: boolean;
  includeUsage: boolean;
  logprobs: LogprobsRequest;
  /** Start the generation; the signal aborts when the client leaves. */
  start(signal: AbortSignal): Promise<ModelOutputThunk<unknown>>;
  /** The whole response of a non-streamed request. */
  body(identity: ResponseIdentity, thunk: ModelOutputThunk<unknown>): Record<string, unknown>;
  /** One streamed chunk: a delta of text and reasoning, with extras (logprobs) and a finish reason. */
  chunk(
    identity: ResponseIdentity,
    delta: StreamDelta,
    extras: Record<string, unknown>,
    finishReason: string | null,
  ): Record<string, unknown>;
}

export interface StreamDelta {
  first: boolean;
  text?: string;
  thinking?: string;
  toolCalls?: unknown[];
}

export interface ServeDependencies {
  limiter: ConcurrencyLimiter;
  metrics: ServerMetrics;
  modelName: string;
  /** The model name and its aliases: what requests may name. */
  servedModels: readonly string[];
  limits: ServerLimits;
  /**
   * Send a streamed answer's headers as soon as its generation starts (the backend refuses up front, so a
   * started generation is an accepted one), rather than with the first output.
   */
  headersOnStart: boolean;
  /** Where timed requests (`tessera bench ttfb`) record their first token's stages; null when off. */
  timings: FirstTokenTimings | null;
}

/**
 * Serve one completion (chat or text) for one HTTP request: wait for a slot (or 503), start it, and answer as JSON or as
 * SSE. Nothing is sent before the generation is accepted, so a refusal (context overflow, bad option) is a
 * plain HTTP error: a backend that refuses up front has accepted a generation it started, any other one only
 * when its first output arrives. A client that leaves cancels its generation; a slow one slows it down.
 */
export async function serveCompletion(
  reply: FastifyReply,
  plan: CompletionPlan,
  dependencies: ServeDependencies,
): Promise<void> {
  const { limiter, metrics } = dependencies;
  const receivedAt = performance.now();
  const marks = dependencies.timings?.marksOf(reply.request);
  const clientGone = new AbortController();
  let thunk: ModelOutputThunk<unknown> | null = null;
  const onClose = () => {
    if (reply.raw.writableFinished) return;
    // Decided before the abort: the abort itself fails the thunk (its caller's signal is this one).
    const running = thunk !== null && !thunk.isComputed() && thunk.failure === null;
    clientGone.abort(new Error("the client disconnected"));
    if (thunk !== null && running) {
      metrics.cancelled.inc();
      void thunk.cancelGeneration();
    }
  };
  reply.raw.on("close", onClose);

  let release: (() => void) | null = null;
  try {
    // A free slot is taken at once (no hop, and the queue gauge does not move). Otherwise acquire() joins
    // the queue synchronously, so the gauge sees this request while it waits.
    release = limiter.tryAcquire(clientGone.signal);
    if (release === null) {
      const slot = limiter.acquire(clientGone.signal);
      metrics.queueDepth.set(limiter.waiting);
      try {
        release = await slot;
      } finally {
        metrics.queueDepth.set(limiter.waiting);
      }
    }
    marks?.generating();
    thunk = await plan.start(clientGone.signal);
    marks?.started(thunk);
    // What the start does not need runs after it, while the prompt is decoded.
    metrics.activeGenerations.set(limiter.active);
    const identity: ResponseIdentity = {
      id: `${plan.route === "chat" ? "chatcmpl" : "cmpl"}-${randomUUID()}`,
      created: Math.floor(Date.now() / 1000),
      model: dependencies.modelName,
    };
    if (clientGone.signal.aborted) {
      await thunk.cancelGeneration();
      return;
    }
    if (plan.stream) {
      await streamAnswer(
        reply,
        plan,
        identity,
        thunk,
        receivedAt,
        metrics,
        dependencies.headersOnStart,
        marks,
      );
    } else {
      await thunk.avalue();
      metrics.ttfb.observe({ route: plan.route }, (performance.now() - receivedAt) / 1000);
      if (!clientGone.signal.aborted) {
        const body = plan.body(identity, thunk);
        marks?.writing();
        await reply.code(200).send(body);
      }
    }
    const usage = thunk.generation.usage;
    if (usage !== null) {
      metrics.tokens.inc({ kind: "prompt" }, usage.promptTokens);
      metrics.tokens.inc({ kind: "completion" }, usage.completionTokens);
    }
  } catch (error) {
    if (!reply.sent && !reply.raw.headersSent && !clientGone.signal.aborted) {
      const answer = errorResponseOf(error, plan, dependencies.limits);
      await reply.code(answer.status).headers(answer.headers).send(answer.body);
    }
  } finally {
    reply.raw.off("close", onClose);
    release?.();
    metrics.activeGenerations.set(limiter.active);
    metrics.duration.observe({ route: plan.route }, (performance.now() - receivedAt) / 1000);
  }
}

async function streamAnswer(
  reply: FastifyReply,
  plan: CompletionPlan,
  identity: ResponseIdentity,
  thunk: ModelOutputThunk<unknown>,
  receivedAt: number,
  metrics: ServerMetrics,
  headersOnStart: boolean,
  marks: FirstTokenMarks | undefined,
): Promise<void> {
  // One part at a time: the iterator protocol keeps the pull bounded by the thunk's queue.
  const iterator = thunk.parts()[Symbol.asyncIterator]();
  const next = async (): Promise<StreamPart | null> => {
    const result = await iterator.next();
    return result.done ? null : result.value;
  };
  let pulled = 0;
  // Parts that carry no output (logits, metadata, usage) are read from the thunk when the text they belong
  // to is sent.
  const firstOutput = async (): Promise<StreamPart | null> => {
    let part = await next();
    while (part !== null && !carriesOutput(part)) part = await next();
    return part;
  };
  // Without headersOnStart, the first output (or the failure) decides between an HTTP error and a 200
  // stream. With it, the generation is already accepted: the headers go out now, while the prompt is
  // decoded, so neither this thread nor the client handles them after the first token; a failure before the
  // first output is then an error event, as a later one is.
  let part = headersOnStart ? null : await firstOutput();
  reply.hijack();
  const writer = new SseWriter(reply.raw, marks === undefined ? undefined : () => marks.writing());
  writer.start(headersOnStart);
  let first = true;
  const aligner = new StepAligner();
  /** Send what is new (text, reasoning, logprobs); false once the client is gone. */
  const sendDelta = async (
    output: { text?: string; thinking?: string },
    finish: string | null,
    toolCalls?: unknown[],
  ): Promise<boolean> => {
    const delta: StreamDelta = { first, ...output };
    if (toolCalls !== undefined) delta.toolCalls = toolCalls;
    if (!first && finish === null && delta.text === undefined && delta.thinking === undefined) return true;
    // Processed and raw traces hold the same tokens; either one places them in the text.
    const steps = (thunk.generation.logits ?? thunk.generation.rawLogits)?.steps ?? [];
    const range = finish === null ? aligner.take(steps, pulled) : aligner.rest(steps);
    const extras = choiceExtras(thunk, plan.logprobs, range.from, range.to);
    if (!(await writer.send(plan.chunk(identity, delta, extras, finish)))) return false;
    if (first) metrics.ttfb.observe({ route: plan.route }, (performance.now() - receivedAt) / 1000);
    first = false;
    return true;
  };
  try {
    if (headersOnStart) part = await firstOutput();
    // Backends resolve their own conventions (tool-call markup, stop sequences): text parts are answer
    // text. Tool calls, the finish reason and usage go in the closing chunks, as OpenAI sends them.
    for (; part !== null; part = await next()) {
      if (part.type === "text-delta") {
        pulled += part.text.length;
        if (!(await sendDelta({ text: part.text }, null))) return;
      } else if (part.type === "reasoning-delta") {
        if (!(await sendDelta({ thinking: part.text }, null))) return;
      }
    }
    if (thunk.cancelled) return;
    const toolCalls = buildToolCalls(thunk)?.map((call, index) => ({ index, ...call }));
    if (!(await sendDelta({}, finishReason(thunk), toolCalls))) return;
    if (plan.includeUsage) {
      const chunk = plan.chunk(identity, { first: false }, {}, null);
      if (!(await writer.send({ ...chunk, choices: [], usage: buildCompletionUsage(thunk) }))) return;
    }
    await writer.done();
  } catch (error) {
    // Mid-stream failure: the text that arrived with it, an error event and no [DONE], so clients know
    // the output is incomplete.
    // The stream ends whatever happens here (the client gone, a mapping that throws): a response left open
    // hangs the client.
    try {
      const rest = (thunk.value ?? "").slice(pulled);
      pulled += rest.length;
      if (rest.length > 0 && !(await sendDelta({ text: rest }, null))) return;
      await writer.send(errorBody(error, plan));
    } finally {
      writer.end();
    }
  } finally {
    // Leaving early (client gone) must not leave the generation running.
    await iterator.return?.();
  }
}

/** The answer to a failed request, in its route's field names (prompt or messages, the output's field). */
function errorResponseOf(error: unknown, plan: CompletionPlan, limits?: ServerLimits) {
  const promptField = plan.route === "completions" ? "prompt" : "messages";
  return toErrorResponse(error, limits, promptField, plan.outputField, plan.grammarField);
}

/**
 * The error event's body, named as the request's HTTP error would be (a failure after the headers went out on
 * acceptance is one the request could otherwise have got as a 400); should the mapping itself fail, a plain
 * internal error still tells the client.
 */
function errorBody(error: unknown, plan: CompletionPlan): OpenAIErrorBody {
  try {
    return errorResponseOf(error, plan).body;
  } catch {
    return {
      error: {
        message: "The generation failed, and its error could not be reported.",
        type: "server_error",
        param: null,
        code: "internal_error",
      },
    };
  }
}

function carriesOutput(part: StreamPart): boolean {
  return part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call";
}
