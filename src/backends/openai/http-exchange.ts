import { OpenAIConnectionError } from "./errors/openai-connection-error.js";
import { OpenAIHttpError } from "./errors/openai-http-error.js";
import { OpenAIIncompleteStreamError } from "./errors/openai-incomplete-stream-error.js";
import { OpenAIMalformedStreamError } from "./errors/openai-malformed-stream-error.js";
import { OpenAIResponseTooLargeError } from "./errors/openai-response-too-large-error.js";
import { OpenAITimeoutError, type OpenAITimeoutPhase } from "./errors/openai-timeout-error.js";
import { type OpenAITimeouts, parseRetryAfter } from "./fault-policy.js";
import { type ServerSentEvent, SseDecoder } from "./sse-decoder.js";

export interface HttpExchangeOptions {
  url: string;
  body: unknown;
  headers: Record<string, string>;
  timeouts: OpenAITimeouts;
  /** performance.now() value after which the total timeout has run out. */
  deadline: number;
  maxResponseBytes: number;
  /** Aborts the exchange from outside (cancellation); its reason is rethrown as is. */
  signal: AbortSignal;
  fetch: typeof fetch;
}

const maxErrorBodyBytes = 64 * 1024;
/** The longest delay setTimeout honours (2^31 - 1 ms). */
const maxTimerMs = 2 ** 31 - 1;

/**
 * One HTTP request and its response body, under the connect, first-token, idle and total clocks and a
 * byte cap. Built on fetch directly: the clocks need the moment headers arrive and every body read, which
 * the openai client keeps inside. Every fault leaves as a typed error.
 */
export class HttpExchange {
  readonly #options: HttpExchangeOptions;
  readonly #controller = new AbortController();
  readonly #timers = new Map<OpenAITimeoutPhase, NodeJS.Timeout>();
  #response: Response | null = null;
  /** performance.now() when the first body byte arrived; null before. */
  firstByteAt: number | null = null;
  receivedBytes = 0;

  constructor(options: HttpExchangeOptions) {
    this.#options = options;
  }

  /** Send the request and wait for the headers; throws OpenAIHttpError on an error status. */
  async open(): Promise<Response> {
    const { timeouts, deadline } = this.#options;
    this.#arm("total", Math.max(0, deadline - performance.now()), timeouts.totalMs);
    this.#arm("connect", timeouts.connectMs);
    this.#arm("first-token", timeouts.firstTokenMs);
    const signal = AbortSignal.any([this.#controller.signal, this.#options.signal]);
    let response: Response;
    try {
      response = await this.#options.fetch(this.#options.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...this.#options.headers },
        body: JSON.stringify(this.#options.body),
        signal,
      });
    } catch (error) {
      throw this.#translate(error, (cause) => new OpenAIConnectionError(this.#options.url, cause));
    }
    this.#disarm("connect");
    this.#response = response;
    if (!response.ok) {
      const retryAfterMs = parseRetryAfter(response.headers);
      const body = await this.#readErrorBody();
      this.close();
      throw new OpenAIHttpError(this.#options.url, response.status, body, retryAfterMs);
    }
    this.#arm("idle", timeouts.idleMs);
    return response;
  }

  /** The first token reached the caller: its clock stops. */
  firstTokenArrived(): void {
    this.#disarm("first-token");
  }

  /** The body's server-sent events, as they complete. Throws when the body ends inside an event. */
  async *events(): AsyncGenerator<ServerSentEvent, void, undefined> {
    const decoder = new SseDecoder();
    for await (const bytes of this.#bodyChunks()) {
      for (const event of decoder.push(bytes)) yield event;
    }
    const pending = decoder.finish();
    if (pending !== null) throw new OpenAIMalformedStreamError("a truncated last event", pending);
  }

  /** The whole body parsed as JSON (non-streaming responses). */
  async json(): Promise<unknown> {
    const parts: Uint8Array[] = [];
    for await (const bytes of this.#bodyChunks()) parts.push(bytes);
    const text = Buffer.concat(parts).toString("utf8");
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new OpenAIMalformedStreamError("a response body", text, error);
    }
  }

  /**
   * Read what is left of the body (after `data: [DONE]`, usually just its end) for at most `graceMs`, so
   * the connection goes back to the pool instead of being cut: the next request skips TCP and TLS setup.
   */
  async drainRest(graceMs: number): Promise<void> {
    const body = this.#response?.body;
    if (!body || body.locked) return;
    const reader = body.getReader();
    const timer = setTimeout(() => {
      reader.cancel().catch(() => undefined);
    }, graceMs);
    try {
      while (!(await reader.read()).done) {
        // Anything after [DONE] is ignored.
      }
    } catch {
      // A body that fails now changes nothing: the answer is complete.
    } finally {
      clearTimeout(timer);
      reader.releaseLock();
    }
  }

  /** Stop the request (if still running) and every clock; idempotent. */
  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    if (!this.#controller.signal.aborted) this.#controller.abort(new Error("exchange closed"));
  }

  async *#bodyChunks(): AsyncGenerator<Uint8Array, void, undefined> {
    const body = this.#response?.body;
    if (!body) return;
    const reader = body.getReader();
    try {
      while (true) {
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch (error) {
          throw this.#translate(
            error,
            (cause) => new OpenAIIncompleteStreamError("the connection was reset", cause),
          );
        }
        if (result.done) return;
        this.firstByteAt ??= performance.now();
        this.receivedBytes += result.value.byteLength;
        if (this.receivedBytes > this.#options.maxResponseBytes) {
          throw new OpenAIResponseTooLargeError(this.#options.maxResponseBytes, "bytes");
        }
        // Restart the idle clock in place: one timer for the whole body, not one per chunk.
        this.#timers.get("idle")?.refresh();
        yield result.value;
      }
    } finally {
      reader.releaseLock();
    }
  }

  async #readErrorBody(): Promise<string> {
    const parts: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const bytes of this.#bodyChunks()) {
        parts.push(bytes);
        size += bytes.byteLength;
        if (size >= maxErrorBodyBytes) break;
      }
    } catch {
      // The status is what matters; a body that fails to arrive only loses the detail.
    }
    return Buffer.concat(parts).toString("utf8").slice(0, maxErrorBodyBytes);
  }

  // A timeout or an outside abort surfaces as its own reason; anything else is the fault at hand.
  #translate(error: unknown, otherwise: (cause: unknown) => Error): unknown {
    if (this.#options.signal.aborted) return this.#options.signal.reason;
    if (this.#controller.signal.aborted) return this.#controller.signal.reason;
    return otherwise(error);
  }

  #arm(phase: OpenAITimeoutPhase, delayMs: number, reportedMs = delayMs): void {
    this.#disarm(phase);
    // Node fires a timer longer than its range (Infinity, or over ~24.8 days) after 1 ms; such a clock
    // means "never", so none is set.
    if (delayMs > maxTimerMs) return;
    const timer = setTimeout(
      () => this.#controller.abort(new OpenAITimeoutError(phase, reportedMs)),
      delayMs,
    );
    this.#timers.set(phase, timer);
  }

  #disarm(phase: OpenAITimeoutPhase): void {
    const timer = this.#timers.get(phase);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(phase);
  }
}
