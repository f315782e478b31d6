import { GenerationAbortedError } from "../../core/errors/generation-aborted-error.js";
import { TesseraError } from "../../core/errors/tessera-error.js";
import type {
  NativeDecodeJob,
  NativeDecodeJobStats,
  NativeEventBatch,
  NativeLogitsColumns,
} from "./addon-types.js";
import { NativeDecodeError } from "./errors/native-decode-error.js";
import { NonFiniteLogitsError } from "./errors/non-finite-logits-error.js";

/** One captured logits vector at one generated token (raw or processed). */
export interface TokenLogits {
  /** Top-k mode: the k best ids and their logits, best first (-1 / -Infinity pad when fewer survive). */
  readonly topIds?: Int32Array;
  readonly topLogits?: Float32Array;
  /**
   * Full mode: the whole vocabulary (processed: cut tokens are -Infinity), in this event's own buffer (a row
   * the addon hands over without a copy; the context reuses it once the array is collected, and past 64 MiB
   * of such rows held, an ordinary copy). A pooled row's buffer is external memory, which cannot be
   * transferred: post rows to a worker without a transfer list (a copy); Node 21 and later throw
   * DataCloneError when a transfer list names one.
   */
  readonly full?: Float32Array;
  /** Raw top-k with `cutBy`: per entry of topIds, the stage code that removed it (0 = survived; see nativeSamplerStages). */
  readonly cutBy?: Uint8Array;
  /** The chosen token's logit in this vector. */
  readonly chosenLogit: number;
  /** log(sum(exp(logits))) over the whole vector: logprob = logit - logSumExp. */
  readonly logSumExp: number;
}

export interface TokenEvent {
  readonly token: number;
  /** The token's piece as UTF-8 bytes (may hold part of a character). */
  readonly bytes: Uint8Array;
  /** Text this token completes (streaming UTF-8 decoding; "" while a character is incomplete). */
  readonly text: string;
  /**
   * Log-probability of the token under the processed distribution (what the selector sampled from);
   * NaN when the generation was started with `tokenLogprobs: false`.
   */
  readonly logprob: number;
  readonly logits?: TokenLogits;
  readonly rawLogits?: TokenLogits;
}

export interface TokenBatch {
  readonly events: readonly TokenEvent[];
  readonly text: string;
}

export interface TokenStreamTimings {
  readonly timeToFirstTokenMs: number | null;
  readonly prefillMs: number | null;
  readonly decodeMs: number | null;
  readonly totalMs: number;
}

export interface TokenStreamResult {
  readonly finishReason: "stop" | "length" | "abort";
  readonly promptTokens: number;
  /** Prompt tokens whose KV cells were reused from an earlier generation (not decoded again). */
  readonly reusedPromptTokens: number;
  /**
   * Prompt tokens decoded in each engine step, in order (a retried or aborted step counts as planned). A
   * prompt that continues a reused prefix ends its first chunk on a multiple of 256 cells (docs/native.md).
   */
  readonly prefillChunks: readonly number[];
  readonly generatedTokens: number;
  readonly seed: number;
  readonly sequence: number;
  readonly timings: TokenStreamTimings;
  /** Raw log-probability of each prompt token (NaN at 0), when promptLogprobs was asked for. */
  readonly promptLogprobs: Float32Array | null;
  /** The text handed to the reader (see TokenStream.text); generatedTokens may count more tokens. */
  readonly text: string;
}

export interface TokenStreamConfig {
  readonly seed: number;
  readonly promptTokens: number;
  readonly queueCapacity: number;
  readonly signal: AbortSignal | undefined;
  /** Called once when the stream ends, however it ends. */
  readonly onEnd?: () => void;
}

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

// One options object for every streaming decode, not one per token.
const streaming = { stream: true } as const;

/**
 * The tokens of one native decode job, read once, pulled in batches from the bounded native queue:
 * decoding runs ahead of the reader by at most queueCapacity tokens. Leaving a `for await` early (or
 * `cancel()`) stops the native work within one decode step.
 */
export class TokenStream implements AsyncIterable<TokenEvent> {
  readonly #job: NativeDecodeJob | undefined;
  readonly #config: TokenStreamConfig;
  readonly #decoder = new TextDecoder("utf-8");
  #text = "";
  #claimed = false;
  #ended = false;
  #outcome: { result: TokenStreamResult } | { error: unknown } | undefined;
  #resultPromise: Promise<TokenStreamResult> | undefined;
  #settle: ((outcome: { result: TokenStreamResult } | { error: unknown }) => void) | undefined;
  readonly #onAbort = () => this.#job?.abort();

  /** @internal Created by LlamaContext.generate; `job` is undefined when the signal was already aborted. */
  constructor(job: NativeDecodeJob | undefined, config: TokenStreamConfig) {
    this.#job = job;
    this.#config = config;
    config.signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (job === undefined) this.#end(undefined, this.#abortError());
  }

  /** True while the native generation waits for a free sequence of its context (queued behind others). */
  get queued(): boolean {
    if (this.#job === undefined || this.#ended) return false;
    const stats = this.#job.getStats();
    return stats.sequence < 0 && !stats.finished;
  }

  /**
   * Text of the tokens handed to the reader so far: whole batches for `batches()`, single events for
   * `for await` (a reader that leaves mid-batch has not seen the rest). The native side may have decoded
   * further: `result.generatedTokens` counts every token decoded.
   */
  get text(): string {
    return this.#text;
  }

  /**
   * Settles once the stream was read to its end or left (an unread stream never finishes: its queue
   * fills and decoding pauses). Created on first access, so an unread failure is never unhandled.
   */
  get result(): Promise<TokenStreamResult> {
    if (this.#resultPromise === undefined) {
      this.#resultPromise = new Promise<TokenStreamResult>((resolve, reject) => {
        const settle = (outcome: { result: TokenStreamResult } | { error: unknown }) =>
          "result" in outcome ? resolve(outcome.result) : reject(outcome.error);
        if (this.#outcome !== undefined) settle(this.#outcome);
        else this.#settle = settle;
      });
    }
    return this.#resultPromise;
  }

  /** Stops native decoding for this stream (the reader then sees the end, with finish reason "abort"). */
  cancel(): void {
    this.#job?.abort();
  }

  [Symbol.asyncIterator](): AsyncGenerator<TokenEvent, void, undefined> {
    return this.#leavable(this.#events());
  }

  async *#events(): AsyncGenerator<TokenEvent, void, undefined> {
    for await (const batch of this.batches()) {
      const { events } = batch;
      for (let index = 0; index < events.length; index++) {
        let resumed = false;
        try {
          yield events[index]!;
          resumed = true;
        } finally {
          // The reader left right after events[index]: the rest of this batch was pulled from the native
          // queue but never handed out, so it is not part of the text (a batch holds several events once
          // wake-ups are coalesced, deliveryDelayMs).
          if (!resumed) this.#forget(events.slice(index + 1));
        }
      }
    }
  }

  /** Takes the text of events that were pulled but never handed to the reader off the end of `text`. */
  #forget(unread: readonly TokenEvent[]): void {
    const length = unread.reduce((sum, event) => sum + event.text.length, 0);
    if (length > 0) this.#text = this.#text.slice(0, this.#text.length - length);
  }

  /** Reads the whole stream and returns its result. */
  async collect(): Promise<TokenStreamResult> {
    for await (const _ of this.batches()) {
      // consume
    }
    return this.result;
  }

  /** The stream as batches of events (one per native pull): the cheapest way to read it. */
  batches(): AsyncGenerator<TokenBatch, void, undefined> {
    return this.#leavable(this.#batches());
  }

  /**
   * `generator` whose return() before its first next() still ends the native job. A generator that never
   * started skips its own finally, so without this an iterator taken and returned unread (a branch
   * released before it was read) left the job paused with a full queue and the result never settled.
   */
  #leavable<T>(generator: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
    const leave = async (value?: undefined): Promise<IteratorResult<T, void>> => {
      if (!this.#claimed) {
        this.#claimed = true;
        await this.#stopUnread();
      }
      return generator.return(value);
    };
    const wrapped: AsyncGenerator<T, void, undefined> = {
      next: (...args) => generator.next(...args),
      return: leave,
      throw: async (error: unknown) => {
        if (!this.#claimed) await leave();
        return generator.throw(error);
      },
      [Symbol.asyncIterator]: () => wrapped,
    };
    return wrapped;
  }

  async #stopUnread(): Promise<void> {
    const job = this.#job;
    if (job !== undefined) {
      job.abort();
      await this.#drain(job);
    }
    this.#end(job, undefined);
  }

  /**
   * Pulls an aborted job to its end, discarding what it reads, so its sequence is free and its stats final
   * when the stream ends. A failed pull here only drops events nobody will read (the reader left, or an
   * earlier failure ends the stream), and the pulls after it still reach the end: draining goes on, a
   * bounded number of times.
   */
  async #drain(job: NativeDecodeJob): Promise<void> {
    for (let failures = 0; failures < 64; ) {
      try {
        if ((await this.#pull(job)).done) return;
      } catch {
        failures++;
      }
    }
  }

  async *#batches(): AsyncGenerator<TokenBatch, void, undefined> {
    if (this.#claimed) {
      throw new TesseraError(
        "This TokenStream was already read; a stream can be iterated once. Generate again.",
      );
    }
    this.#claimed = true;
    const job = this.#job;
    // A pull that failed (out of memory while handing a batch over): the native job dropped that batch and
    // stopped, and the stream ends with this error, in its result too.
    let pullFailure: NativeDecodeError | undefined;
    try {
      if (job === undefined) throw this.#abortError();
      while (true) {
        const batch = await this.#pull(job).catch((error: unknown) => {
          pullFailure = this.#pullError(error);
          throw pullFailure;
        });
        if (batch.count > 0) yield this.#convert(batch);
        if (batch.done) break;
      }
      this.#finish(job);
    } finally {
      if (!this.#ended) {
        // Left early (break, return, an exception in the loop body or a failed pull): stop native work and
        // wait for the decode thread to confirm, so the sequence is free when this returns.
        if (job !== undefined) {
          job.abort();
          await this.#drain(job);
        }
        this.#end(job, pullFailure);
      }
    }
  }

  /** A failed pull's error as the stream reports it: typed, with the text generated before it. */
  #pullError(error: unknown): NativeDecodeError {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : String(error);
    return new NativeDecodeError(
      typeof code === "string" ? code : "ERR_NATIVE_EXCEPTION",
      message,
      this.#text,
    );
  }

  #pull(job: NativeDecodeJob): Promise<NativeEventBatch> {
    // Full vectors arrive as one Float32Array per event that the caller owns (a pooled row the addon hands
    // over), so they stay valid however long the caller keeps them.
    return job.pull(this.#config.queueCapacity);
  }

  #convert(batch: NativeEventBatch): TokenBatch {
    const events: TokenEvent[] = new Array(batch.count);
    let batchText = "";
    let start = 0;
    for (let index = 0; index < batch.count; index++) {
      const end = batch.pieceEnds[index]!;
      const bytes = batch.pieceBytes.subarray(start, end);
      start = end;
      // The generation's last token also takes what the decoder still holds (the replacement characters
      // for a character the output ended inside): every character of the output then belongs to a token
      // and arrives in that token's delta.
      const last = batch.done && index === batch.count - 1;
      const text = last ? this.#decoder.decode(bytes) : this.#decoder.decode(bytes, streaming);
      batchText += text;
      const event: Mutable<TokenEvent> = {
        token: batch.tokens[index]!,
        bytes,
        text,
        logprob: batch.logprobs[index]!,
      };
      if (batch.processed !== undefined) event.logits = this.#logitsAt(batch.processed, index);
      if (batch.raw !== undefined) event.rawLogits = this.#logitsAt(batch.raw, index);
      events[index] = event;
    }
    this.#text += batchText;
    return { events, text: batchText };
  }

  #logitsAt(columns: NativeLogitsColumns, index: number): TokenLogits {
    const chosenLogit = columns.chosenLogits?.[index] ?? Number.NaN;
    const logSumExp = columns.logSumExp?.[index] ?? Number.NaN;
    if (columns.fullRows !== undefined) return { full: columns.fullRows[index]!, chosenLogit, logSumExp };
    const k = columns.topK ?? 0;
    return {
      topIds: columns.ids!.subarray(index * k, (index + 1) * k),
      topLogits: columns.logits!.subarray(index * k, (index + 1) * k),
      ...(columns.cutBy !== undefined && { cutBy: columns.cutBy.subarray(index * k, (index + 1) * k) }),
      chosenLogit,
      logSumExp,
    };
  }

  #finish(job: NativeDecodeJob): void {
    const stats = job.getStats();
    // A generation that ends by itself flushed the decoder into its last event. Bytes still held here
    // belong to a character that a cancel, an abort or an error cut off: no token's text, so not the
    // stream's either (its text stays the concatenation of its events' texts).
    this.#decoder.decode();
    let error: unknown;
    if (stats.finishReason === "error") {
      const message = stats.errorMessage ?? "the native generation failed";
      error =
        stats.errorCode === "ERR_NON_FINITE_LOGITS"
          ? new NonFiniteLogitsError(message, this.#text)
          : new NativeDecodeError(stats.errorCode ?? "ERR_DECODE", message, this.#text);
    } else if (stats.finishReason === "abort" && this.#config.signal?.aborted) {
      error = this.#abortError();
    } else if (stats.finishReason === "abort" && stats.errorCode === "ERR_CONTEXT_DISPOSED") {
      error = new NativeDecodeError(
        stats.errorCode,
        stats.errorMessage ?? "the context was disposed",
        this.#text,
      );
    }
    this.#end(job, error, stats);
    if (error !== undefined) throw error;
  }

  #abortError(): GenerationAbortedError {
    return new GenerationAbortedError(this.#text, this.#config.signal?.reason);
  }

  #end(job: NativeDecodeJob | undefined, error: unknown, known?: NativeDecodeJobStats): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#config.signal?.removeEventListener("abort", this.#onAbort);
    this.#config.onEnd?.();
    let outcome: { result: TokenStreamResult } | { error: unknown };
    if (error !== undefined || job === undefined) {
      outcome = { error };
    } else {
      const stats = known ?? job.getStats();
      outcome = {
        result: {
          finishReason:
            stats.finishReason === "stop" || stats.finishReason === "length" ? stats.finishReason : "abort",
          promptTokens: stats.promptTokens,
          reusedPromptTokens: stats.reusedPromptTokens ?? 0,
          prefillChunks: stats.prefillChunks ?? [],
          generatedTokens: stats.generatedTokens ?? 0,
          seed: this.#config.seed,
          sequence: stats.sequence,
          timings: {
            timeToFirstTokenMs: stats.timeToFirstTokenMs ?? null,
            prefillMs: stats.prefillMs ?? null,
            decodeMs: stats.decodeMs ?? null,
            totalMs: stats.totalMs ?? 0,
          },
          promptLogprobs: job.getPromptLogprobs(),
          text: this.#text,
        },
      };
    }
    this.#outcome = outcome;
    this.#settle?.(outcome);
  }
}
