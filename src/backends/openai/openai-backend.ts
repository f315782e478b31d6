import { setTimeout as sleep } from "node:timers/promises";
import type { Attributes } from "@opentelemetry/api";
import type { BackendCapabilities, GenerateAction, GenerateResult } from "../../core/backend.js";
import {
  BaseBackend,
  type BaseBackendOptions,
  type ResolvedGenerateOptions,
} from "../../core/base-backend.js";
import type { Context } from "../../core/context.js";
import { GenerateLog } from "../../core/generate-log.js";
import { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Span } from "../../core/span.js";
import type { StreamPart } from "../../core/stream-part.js";
import type { GenAiOperation } from "../../core/telemetry/backend-call-observation.js";
import { GenAi } from "../../core/telemetry/gen-ai-conventions.js";
import type { Formatter } from "../../formatting/formatter.js";
import { TemplateFormatter } from "../../formatting/template-formatter.js";
import { templateUseOf } from "../../formatting/template-use-of.js";
import { buildChatRequest, type ChatRequest } from "./build-chat-request.js";
import { OpenAIBackendError } from "./errors/openai-backend-error.js";
import { OpenAIConfigurationError } from "./errors/openai-configuration-error.js";
import { OpenAIHttpError } from "./errors/openai-http-error.js";
import { OpenAIIncompleteStreamError } from "./errors/openai-incomplete-stream-error.js";
import {
  defaultMaxResponseBytes,
  defaultRetryPolicy,
  defaultTimeouts,
  type OpenAIRetryPolicy,
  type OpenAITimeouts,
  retryDelayMs,
} from "./fault-policy.js";
import { HttpExchange } from "./http-exchange.js";
import { OpenAIOutputAssembler } from "./output-assembler.js";
import { readChatStream } from "./read-chat-stream.js";

export interface OpenAIBackendOptions extends BaseBackendOptions {
  /** Model name sent to the server; default OPENAI_MODEL. */
  model?: string;
  /** Base URL of the API, ending in /v1; default OPENAI_BASE_URL, else https://api.openai.com/v1. */
  baseUrl?: string;
  /** Bearer token; default OPENAI_API_KEY. Local servers often need none. */
  apiKey?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  timeouts?: Partial<OpenAITimeouts>;
  retry?: Partial<OpenAIRetryPolicy>;
  /** Cap on the bytes of one response body (default 32 MiB). */
  maxResponseBytes?: number;
  capabilities?: Partial<BackendCapabilities>;
  /** Renders components into message text (default: the built-in templates for this model). */
  formatter?: Formatter;
  /** fetch to use (default the global one), for proxies or instrumentation. */
  fetch?: typeof fetch;
}

/**
 * A Backend over any OpenAI-compatible chat-completions server (OpenAI, vLLM, llama-server, tessera
 * serve). Streams by default into an uncomputed thunk; faults before the first token are retried with
 * backoff, faults after it fail the thunk with the text received so far kept on it.
 */
export class OpenAIBackend extends BaseBackend {
  readonly modelId: string;
  readonly capabilities: BackendCapabilities;
  readonly baseUrl: string;
  readonly timeouts: OpenAITimeouts;
  readonly retry: OpenAIRetryPolicy;
  readonly maxResponseBytes: number;
  readonly #apiKey: string | undefined;
  readonly #headers: Record<string, string>;
  readonly #formatter: Formatter;
  readonly #fetch: typeof fetch;

  constructor(options: OpenAIBackendOptions = {}) {
    super(options);
    const model = options.model ?? process.env.OPENAI_MODEL;
    if (model === undefined || model.length === 0) {
      throw new OpenAIConfigurationError("no model name; pass { model } or set OPENAI_MODEL");
    }
    this.modelId = model;
    const baseUrl = options.baseUrl ?? process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
    if (!/^https?:\/\//.test(baseUrl)) {
      throw new OpenAIConfigurationError(
        `the base URL must start with http:// or https://, got "${baseUrl}"`,
      );
    }
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.#apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
    this.#headers = options.headers ?? {};
    this.timeouts = { ...defaultTimeouts, ...options.timeouts };
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    this.maxResponseBytes = options.maxResponseBytes ?? defaultMaxResponseBytes;
    this.capabilities = {
      images: true,
      audio: true,
      logits: true,
      rawLogits: false,
      grammar: true,
      tools: true,
      toolChoice: false,
      parallelSequences: 8,
      ...options.capabilities,
    };
    this.#formatter = options.formatter ?? new TemplateFormatter(model);
    this.#fetch = options.fetch ?? fetch;
  }

  protected async doGenerateFromContext<T>(
    action: GenerateAction<T>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<GenerateResult<T>> {
    const toolSpans = context.actionsForAvailableTools() ?? [];
    const thunk = this.#start(action, context, context.viewForGeneration() ?? [], toolSpans, options);
    return { thunk, context: context.add(action).add(thunk) };
  }

  protected async doGenerateFromRaw<T>(
    actions: ReadonlyArray<GenerateAction<T>>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<Array<ModelOutputThunk<T>>> {
    return actions.map((action) => this.#start(action, context, [], [], options));
  }

  #start<T>(
    action: GenerateAction<T>,
    context: Context,
    history: readonly Span[],
    toolSpans: readonly Span[],
    options: ResolvedGenerateOptions<T>,
  ): ModelOutputThunk<T> {
    const stream = options.modelOptions.stream ?? true;
    const request = buildChatRequest(
      this.modelId,
      history,
      action,
      options,
      this.#formatter,
      stream,
      toolSpans,
    );
    const thunk = new ModelOutputThunk<T>();
    thunk.action = action;
    thunk.context = context;
    thunk.modelOptions = options.modelOptions;
    thunk.generation.model = this.modelId;
    thunk.generation.provider = "openai";
    thunk.generation.streaming = stream;
    const template = templateUseOf(this.#formatter, action);
    thunk.generation.promptTemplate = template?.template ?? null;
    thunk.generation.promptTemplateVariables = template?.variables ?? null;
    thunk.generateLog = new GenerateLog({
      prompt: request.body.messages as unknown[],
      backend: `openai::${this.modelId}`,
      modelOptions: options.modelOptions,
      action,
      result: thunk as ModelOutputThunk<unknown>,
      extra: { baseUrl: this.baseUrl, stream, attempts: 0, tools: Object.keys(request.tools) },
    });
    const assembler = new OpenAIOutputAssembler<T>(request, options.format ?? null);
    const startedAt = performance.now();
    thunk.consume(
      (signal) => {
        // A cancel fires this before the thunk settles, so the span and code after a `break` see them.
        // (The signal also aborts on the caller's signal and when the thunk fails: not a cancel.)
        signal.addEventListener(
          "abort",
          () => {
            if (thunk.cancelled) assembler.cancelled(thunk);
          },
          { once: true },
        );
        return this.#parts(thunk, assembler, request, stream, options, startedAt, signal);
      },
      { startedAt, ...(options.signal !== undefined && { signal: options.signal }) },
    );
    return thunk;
  }

  /**
   * The parts of one generation, retries included. The signal is the thunk's: it aborts on a cancel and on
   * the caller's signal (the thunk listens to that one), and stops the HTTP exchange.
   */
  async *#parts<T>(
    thunk: ModelOutputThunk<T>,
    assembler: OpenAIOutputAssembler<T>,
    request: ChatRequest,
    stream: boolean,
    options: ResolvedGenerateOptions<T>,
    startedAt: number,
    signal: AbortSignal,
  ): AsyncGenerator<StreamPart, void, undefined> {
    const deadline = startedAt + this.timeouts.totalMs;
    const progress = { text: "", delivered: false };
    const maxChunks = options.modelOptions.maxNewTokens;
    for (let attempt = 1; ; attempt += 1) {
      if (thunk.generateLog !== null) thunk.generateLog.extra.attempts = attempt;
      const exchange = new HttpExchange({
        url: `${this.baseUrl}/chat/completions`,
        body: request.body,
        headers: this.#requestHeaders(),
        timeouts: this.timeouts,
        deadline,
        maxResponseBytes: this.maxResponseBytes,
        signal,
        fetch: this.#fetch,
      });
      try {
        await exchange.open();
        if (stream) {
          for await (const item of readChatStream({ thunk, exchange, startedAt, progress, maxChunks })) {
            if (item.kind === "started") yield { type: "response-metadata", id: item.id, model: item.model };
            else yield* assembler.parts(item);
          }
        } else {
          exchange.firstTokenArrived();
          const completion = await exchange.json();
          const body = (completion ?? {}) as Record<string, unknown>;
          yield {
            type: "response-metadata",
            id: typeof body.id === "string" ? body.id : null,
            model: typeof body.model === "string" ? body.model : null,
          };
          thunk.generation.timeToFirstTokenMs = performance.now() - startedAt;
          yield* assembler.parts({ kind: "completion", completion });
        }
        yield* assembler.finish(thunk);
        // What the server answered (streamed chunks merged), as the local backend logs its native result.
        if (thunk.generateLog !== null) thunk.generateLog.modelOutput = thunk.raw?.response ?? null;
        return;
      } catch (error) {
        if (signal.aborted) return;
        const failure = OpenAIBackendError.isInstance(error)
          ? error
          : new OpenAIIncompleteStreamError("unexpected failure", error);
        failure.partialText = progress.text;
        failure.attempts = attempt;
        const retryAfter = OpenAIHttpError.isInstance(failure) ? failure.retryAfterMs : null;
        const delay = retryDelayMs(this.retry, attempt, retryAfter);
        const canRetry =
          failure.retryable &&
          !progress.delivered &&
          attempt <= this.retry.maxRetries &&
          performance.now() + delay < deadline;
        if (!canRetry) throw failure;
        try {
          await sleep(delay, undefined, { signal });
        } catch {
          return;
        }
      } finally {
        exchange.close();
      }
    }
  }

  /** Raw generations are sent to /chat/completions too, so their spans say chat. */
  protected override rawOperation(): GenAiOperation {
    return "chat";
  }

  /** server.address and server.port, as the GenAI conventions ask of a remote model. */
  protected override telemetryAttributes(): Attributes {
    const url = new URL(this.baseUrl);
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    return { [GenAi.serverAddress]: url.hostname, [GenAi.serverPort]: port };
  }

  #requestHeaders(): Record<string, string> {
    const headers: Record<string, string> = {
      accept: "text/event-stream, application/json",
      ...this.#headers,
    };
    if (this.#apiKey !== undefined && this.#apiKey.length > 0)
      headers.authorization = `Bearer ${this.#apiKey}`;
    return headers;
  }
}
