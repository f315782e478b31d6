// A row that streams from an OpenAI-compatible server (tessera serve, llama-server, vLLM, Ollama, a hosted
// API) over node:http (BenchHttpClient, which says why not fetch), so the first body byte and every SSE
// content delta are timed where they arrive, with no client library in between. Anything off the
// protocol fails the run (BenchStreamError).

import { randomUUID } from "node:crypto";
import {
  monotonicMs,
  type ServedFirstTokenTimings,
  timingIdHeader,
} from "../../backends/openai/served-first-token-timings.js";
import { SseDecoder } from "../../backends/openai/sse-decoder.js";
import { BenchHttpClient } from "../bench-http-client.js";
import type { BenchTarget, StreamObserver, StreamOutcome, StreamRequest } from "../bench-target.js";
import { BenchStreamError } from "../errors/bench-stream-error.js";
import { redactedUrl } from "../redact-url-credentials.js";
import { secondTurnMessage } from "./backend-target.js";

type ChatMessage = { role: "user" | "assistant"; content: string };

export interface OpenAIHttpTargetOptions {
  name: string;
  /** Base URL including /v1, e.g. http://127.0.0.1:8080/v1. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** "chat" (default) posts /chat/completions with one user message; "completions" posts the raw prompt. */
  api?: "chat" | "completions";
  /**
   * Measure the second turn of a chat (api "chat" only): each run first sends the prompt and reads the
   * whole answer (untimed), then times a short follow-up with that history, whose KV cells the server can
   * reuse.
   */
  secondTurn?: boolean;
  /**
   * Ask the server where each first token went (tessera serve started with TESSERA_SERVE_TIMINGS=1): an
   * x-tessera-timing-id header on each request, then GET /debug/first-token/<id> after its stream.
   */
  firstTokenTimings?: boolean;
  /** Whether the server is a Node process started here (BenchTarget.jitCompiled); never a remote one. */
  jitCompiled?: boolean;
  /** A new connection for every request (BenchHttpClientOptions.newConnections). */
  newConnections?: boolean;
  /** Extra request fields, e.g. { ignore_eos: true } for llama-server. */
  extraBody?: Record<string, unknown>;
  /** Runs before the first request (start a server); may throw BenchTargetUnavailableError. */
  prepare?: (signal: AbortSignal) => Promise<void>;
  close?: () => Promise<void>;
}

interface StreamChunk {
  choices?: Array<{ delta?: { content?: string | null; reasoning_content?: string | null }; text?: string }>;
  usage?: { completion_tokens?: number } | null;
  error?: { message?: string } | string;
}

export class OpenAIHttpTarget implements BenchTarget {
  readonly transport = "http" as const;
  readonly name: string;
  readonly jitCompiled: boolean;
  readonly #options: OpenAIHttpTargetOptions;
  readonly #client: BenchHttpClient;
  #history: ChatMessage[] | undefined;

  constructor(options: OpenAIHttpTargetOptions) {
    this.name = options.name;
    this.#client = new BenchHttpClient({ newConnections: options.newConnections === true });
    this.jitCompiled = options.jitCompiled === true;
    this.#options = options;
  }

  async prepare(signal: AbortSignal): Promise<void> {
    await this.#options.prepare?.(signal);
  }

  connectionNote(): string | null {
    return this.#client.connectionNote(new URL(this.#options.baseUrl).origin);
  }

  async close(): Promise<void> {
    this.#client.close();
    await this.#options.close?.();
  }

  async prepareRun(request: StreamRequest): Promise<void> {
    // Untimed: a server that may close its connection after answering has done so before the run.
    await this.#client.settle(this.#options.baseUrl);
    if (this.#options.secondTurn !== true) return;
    let answer = "";
    await this.#send(request, [{ role: "user", content: request.prompt }], {
      firstByte() {},
      content(text) {
        answer += text;
      },
    });
    this.#history = [
      { role: "user", content: request.prompt },
      { role: "assistant", content: answer },
    ];
  }

  async stream(request: StreamRequest, observer: StreamObserver): Promise<StreamOutcome> {
    const history = this.#history;
    this.#history = undefined;
    const messages: ChatMessage[] =
      history === undefined
        ? [{ role: "user", content: request.prompt }]
        : [...history, { role: "user", content: secondTurnMessage }];
    return this.#send(request, messages, observer);
  }

  async #send(
    request: StreamRequest,
    messages: ChatMessage[],
    observer: StreamObserver,
  ): Promise<StreamOutcome> {
    const api = this.#options.api ?? "chat";
    const body = {
      model: this.#options.model,
      ...(api === "chat" ? { messages } : { prompt: request.prompt }),
      max_tokens: request.maxTokens,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
      ...this.#options.extraBody,
    };
    const url = `${this.#options.baseUrl.replace(/\/+$/, "")}/${api === "chat" ? "chat/completions" : "completions"}`;
    const timingId = this.#options.firstTokenTimings === true ? randomUUID() : null;
    // On the machine's clocks, as the server's marks: the request's way to the server is a stage too.
    const sentAt = performance.now();
    const response = await this.#client.request({
      method: "POST",
      url,
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        ...(this.#options.apiKey ? { authorization: `Bearer ${this.#options.apiKey}` } : {}),
        ...(timingId !== null && { [timingIdHeader]: timingId }),
      },
      body: JSON.stringify(body),
      signal: request.signal,
    });
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      const text = (await BenchHttpClient.text(response)).slice(0, 200);
      throw new BenchStreamError(
        this.name,
        `${BenchHttpClient.describeStatus(response, url)}${text === "" ? "" : `: ${text}`}`,
        "",
        response.headers.location === undefined ? undefined : "Give the URL it points to.",
      );
    }
    const decoder = new SseDecoder();
    let received = "";
    let completionTokens: number | null = null;
    let sawDone = false;
    let firstContentAt: number | null = null;
    try {
      for await (const bytes of response as AsyncIterable<Buffer>) {
        observer.firstByte();
        const arrivedAt = performance.now();
        for (const event of decoder.push(bytes)) {
          if (event.data === "[DONE]") {
            sawDone = true;
            continue;
          }
          let chunk: StreamChunk;
          try {
            chunk = JSON.parse(event.data) as StreamChunk;
          } catch {
            throw new BenchStreamError(
              this.name,
              `unparsable SSE data ${JSON.stringify(event.data.slice(0, 80))}`,
              received,
            );
          }
          if (chunk.error !== undefined) {
            const message =
              typeof chunk.error === "string" ? chunk.error : (chunk.error.message ?? "unknown error");
            // The server itself reported the failure (llama-server does when its output parser rejects the
            // random model's text): the URL and the API are right, so no advice about them.
            throw new BenchStreamError(
              this.name,
              `the server sent an error event: ${message}`,
              received,
              "The server reported it mid-stream.",
            );
          }
          const choice = chunk.choices?.[0];
          const text = choice?.delta?.content ?? choice?.text ?? "";
          if (text) {
            received += text;
            firstContentAt ??= arrivedAt;
            observer.content(text, arrivedAt);
          }
          if (typeof chunk.usage?.completion_tokens === "number")
            completionTokens = chunk.usage.completion_tokens;
        }
      }
    } catch (error) {
      if (BenchStreamError.isInstance(error) || request.signal.aborted) throw error;
      // The socket failed under the body (the server crashed or was stopped): a failed run that keeps
      // the text that arrived, not a bare "aborted".
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new BenchStreamError(
        this.name,
        `the connection to ${redactedUrl(url)} closed before the stream ended (${reason})`,
        received,
        "The server may have crashed or been stopped; its output says why.",
      );
    }
    const leftover = decoder.finish();
    if (leftover !== null)
      throw new BenchStreamError(this.name, "the stream ended inside an event", received);
    if (!sawDone) throw new BenchStreamError(this.name, "the stream ended without [DONE]", received);
    if (timingId === null || firstContentAt === null) return { completionTokens };
    const firstToken = await this.#firstTokenTimings(timingId, sentAt, firstContentAt, request.signal);
    return { completionTokens, firstToken };
  }

  /**
   * The server's stages of this request's first token, and the network and client parsing: from the
   * server's first write to this client's first read, both on the machine's clock (the server runs here).
   */
  async #firstTokenTimings(
    id: string,
    sentAt: number,
    firstContentAt: number,
    signal: AbortSignal,
  ): Promise<NonNullable<StreamOutcome["firstToken"]>> {
    const url = `${new URL(this.#options.baseUrl).origin}/debug/first-token/${id}`;
    const response = await this.#client.request({ method: "GET", url, signal });
    const text = await BenchHttpClient.text(response);
    if (response.statusCode !== 200)
      throw new BenchStreamError(
        this.name,
        `HTTP ${response.statusCode} from ${redactedUrl(url)}: ${text.slice(0, 200)}`,
      );
    let served: ServedFirstTokenTimings;
    try {
      served = JSON.parse(text) as ServedFirstTokenTimings;
    } catch {
      throw new BenchStreamError(
        this.name,
        `${redactedUrl(url)} answered 200 with no JSON: ${text.slice(0, 200)}`,
      );
    }
    // The shared monotonic clock where the server reports it; a server from before it, the wall clock.
    const { arrivedMonotonicMs: arrived, firstWriteMonotonicMs: firstWrite } = served;
    const monotonic = typeof arrived === "number" && typeof firstWrite === "number";
    const transit = monotonic
      ? arrived - monotonicMs(sentAt)
      : served.arrivedEpochMs - (performance.timeOrigin + sentAt);
    const network = monotonic
      ? monotonicMs(firstContentAt) - firstWrite
      : performance.timeOrigin + firstContentAt - served.firstWriteEpochMs;
    return {
      stages: {
        transit,
        request: served.requestMs,
        setup: served.setupMs,
        template: served.templateMs,
        tokenize: served.tokenizeMs,
        queueWait: served.queueWaitMs,
        prefill: served.prefillMs,
        firstDelivery: served.firstDeliveryMs,
        firstWrite: served.firstWriteMs,
        network,
      },
    };
  }
}
