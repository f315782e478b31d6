import { BoundedChunkQueue } from "./bounded-chunk-queue.js";
import { CBlock } from "./cblock.js";
import { Component } from "./component.js";
import type { Context } from "./context.js";
import { BlockValueTypeError } from "./errors/block-value-type-error.js";
import { ComponentParseError } from "./errors/component-parse-error.js";
import { GenerationCancelledError } from "./errors/generation-cancelled-error.js";
import { ThunkAlreadyComputedError } from "./errors/thunk-already-computed-error.js";
import { ThunkAlreadyIteratedError } from "./errors/thunk-already-iterated-error.js";
import { ThunkNotStartedError } from "./errors/thunk-not-started-error.js";
import { ThunkProducerError } from "./errors/thunk-producer-error.js";
import type { GenerateLog } from "./generate-log.js";
import { GenerateType } from "./generate-type.js";
import { GenerationMetadata } from "./generation-metadata.js";
import type { HookRegistry } from "./hooks.js";
import type { ModelOptions } from "./model-options.js";
import type { ModelToolCall } from "./model-tool-call.js";
import type { RawProviderResponse } from "./raw-provider-response.js";
import type { Span } from "./span.js";
import type { ThunkDelta, ThunkProducer, ThunkProducerConfig } from "./thunk-producer.js";

// Backends import the producer types from here as well as from thunk-producer.js.
export type { ThunkDelta, ThunkProducer, ThunkProducerConfig } from "./thunk-producer.js";

const marker = Symbol.for("tessera.ModelOutputThunk");

export interface ModelOutputThunkOptions<T> {
  meta?: Record<string, unknown>;
  parsedRepr?: T | null;
  toolCalls?: ModelToolCall[] | null;
  thinking?: string | null;
}

/**
 * A lazily evaluated model response. It can exist before its output is computed; reading it (avalue(),
 * astream(), for-await) pulls the output through a bounded queue, so a slow reader slows the producer down.
 * Not a CBlock: it is always an output.
 */
export class ModelOutputThunk<T = string> {
  readonly [marker] = true;

  meta: Record<string, unknown>;
  /** The parsed output: the action's parse() result, or the value itself for CBlock actions. */
  parsedRepr: T | null;
  /** Tool calls returned with the text, in order. */
  toolCalls: ModelToolCall[] | null;
  /** The reasoning trace, for models that think before answering. */
  thinking: string | null;
  /** Soft failure recorded without throwing (for example a ComponentParseError); null on success. */
  error: Error | null = null;
  generateLog: GenerateLog | null = null;
  generation = new GenerationMetadata();
  raw: RawProviderResponse | null = null;
  /** The component or block this thunk answers. */
  action: Span | null = null;
  /** The context the generation ran in (before this output was added). */
  context: Context | null = null;
  modelOptions: ModelOptions | null = null;
  generateType: GenerateType = GenerateType.none;
  /** Where cancellations are reported (generationError); set by the backend. */
  hooks: HookRegistry | null = null;

  #value: string | null;
  #computed: boolean;
  #cancelled = false;
  #failed = false;
  #failure: unknown = null;
  #producerStarted = false;
  #config: ThunkProducerConfig<unknown, T> | null = null;
  readonly #queue = new BoundedChunkQueue<unknown>();
  readonly #abortController = new AbortController();
  #currentStep: Promise<void> | null = null;
  // Text applied but not yet handed to a reader. Kept as pieces so that delivering a delta costs its own
  // length, not the length of the whole output (slicing a growing string is quadratic over a long stream).
  #undelivered: string[] = [];
  #deliveredAny = false;
  #iteratorTaken = false;
  #startedAt = 0;
  #settled = false;
  #settledListeners: Array<() => void> | null = null;

  constructor(value: string | null = null, options: ModelOutputThunkOptions<T> = {}) {
    this.#value = checkValue(value);
    if (value) this.#undelivered.push(value);
    this.#computed = value !== null;
    this.meta = options.meta ?? {};
    this.parsedRepr = options.parsedRepr ?? null;
    this.toolCalls = options.toolCalls ?? null;
    this.thinking = options.thinking ?? null;
  }

  /** The text so far: complete once computed, partial while streaming or after a failure, null before any output. */
  get value(): string | null {
    return this.#value;
  }

  set value(value: string | null) {
    this.#value = checkValue(value);
    // A value set by hand replaces the stream: a reader that has seen nothing yet gets all of it, one that
    // has already read deltas gets nothing more (its earlier deltas no longer add up to this value).
    this.#undelivered = !this.#deliveredAny && value ? [value] : [];
  }

  /** True once the output is complete (or was cut short by cancelGeneration). */
  isComputed(): boolean {
    return this.#computed;
  }

  /** True if cancelGeneration() ran on this thunk before it completed. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** The error the generation failed with (hard failure), or null. */
  get failure(): unknown {
    return this.#failed ? this.#failure : null;
  }

  /**
   * Run `listener` once the generation has ended, whichever way: completed (after parsing), cancelled or
   * failed; at once if it already has. For observers such as telemetry, which must not consume the stream.
   * A listener that throws is ignored: observing must never break the generation.
   */
  onSettled(listener: () => void): void {
    if (this.#settled || (!this.#producerStarted && (this.#computed || this.#failed))) {
      queueMicrotask(() => runListener(listener));
      return;
    }
    this.#settledListeners ??= [];
    this.#settledListeners.push(listener);
  }

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    const listeners = this.#settledListeners ?? [];
    this.#settledListeners = null;
    for (const listener of listeners) runListener(listener);
  }

  /** Start feeding this thunk; a backend calls it once per thunk. */
  startProducer<C>(config: ThunkProducerConfig<C, T>): ThunkProducer<C> {
    if (this.#producerStarted) throw new ThunkProducerError("it already has a producer");
    if (this.#computed) throw new ThunkProducerError("it is already computed");
    this.#producerStarted = true;
    this.#config = config as ThunkProducerConfig<unknown, T>;
    if (config.capacity !== undefined) this.#queue.capacity = config.capacity;
    this.generateType = GenerateType.async;
    this.#startedAt = performance.now();
    const queue = this.#queue as BoundedChunkQueue<C>;
    return {
      push: (chunk: C) => {
        if (this.generation.ttfbMs === null && !queue.closed) {
          this.generation.ttfbMs = performance.now() - this.#startedAt;
        }
        return queue.push(chunk);
      },
      end: () => {
        queue.finish({ kind: "end" });
      },
      fail: (error: unknown) => {
        queue.finish({ kind: "fail", error });
      },
      signal: this.#abortController.signal,
    };
  }

  /** The complete output, waiting for the generation if needed. Rejects with the generation's error if it failed. */
  async avalue(): Promise<string> {
    while (!this.#computed && !this.#failed) await this.#advance();
    if (this.#failed) throw this.#failure;
    return this.#value ?? "";
  }

  /**
   * Only the text received since the previous call (possibly "" when a chunk carried no text). Waits for at
   * least one chunk. Throws ThunkAlreadyComputedError when called after the generation finished.
   */
  async astream(): Promise<string> {
    if (this.#computed) throw new ThunkAlreadyComputedError();
    if (this.#failed) throw this.#failure;
    if (this.#undelivered.length === 0) await this.#advance();
    // Take what was already queued when we got here, without waiting for more. Counting it first matters:
    // a producer that keeps up would otherwise refill the queue forever and defeat the backpressure.
    for (let queued = this.#queue.size; queued > 0 && !this.#computed && !this.#failed; queued -= 1) {
      await this.#advance();
    }
    if (this.#failed) throw this.#failure;
    return this.#takeUndelivered();
  }

  /** Text deltas as they arrive. Single consumer: a second iterator throws ThunkAlreadyIteratedError. */
  [Symbol.asyncIterator](): AsyncIterator<string> {
    if (this.#iteratorTaken) throw new ThunkAlreadyIteratedError();
    this.#iteratorTaken = true;
    return this.#iterate();
  }

  /**
   * Stop an unfinished generation: the queue is drained (a blocked push resolves false), the producer's
   * signal aborts, the thunk becomes computed with the text received so far, and generationError fires
   * with `error` (default GenerationCancelledError). A no-op once computed or failed.
   */
  async cancelGeneration(error?: unknown): Promise<void> {
    if (this.#computed || this.#failed) return;
    const reason = error ?? new GenerationCancelledError();
    this.#cancelled = true;
    this.#computed = true;
    this.#value ??= "";
    this.#queue.drain();
    this.#abortController.abort(reason);
    this.#settle();
    await this.hooks?.emit("generationError", {
      backend: null,
      action: this.action,
      thunk: this,
      error: reason,
    });
  }

  /** Cancel an unfinished generation and release its resources; idempotent, a no-op once computed. */
  async aclose(): Promise<void> {
    await this.cancelGeneration();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.aclose();
  }

  toString(): string {
    return this.#value ?? "";
  }

  /** True for any ModelOutputThunk, also one from another copy of this package. */
  static isInstance(value: unknown): value is ModelOutputThunk<unknown> {
    return typeof value === "object" && value !== null && marker in value;
  }

  async *#iterate(): AsyncGenerator<string, void, undefined> {
    let finished = false;
    try {
      while (true) {
        const delta = this.#takeUndelivered();
        if (delta.length > 0) yield delta;
        else if (this.#failed) {
          finished = true;
          throw this.#failure;
        } else if (this.#computed) {
          finished = true;
          return;
        } else await this.#advance();
      }
    } finally {
      // Leaving a for-await early must not leave the generation running.
      if (!finished) await this.aclose();
    }
  }

  #takeUndelivered(): string {
    if (this.#undelivered.length === 0) return "";
    const delta = this.#undelivered.length === 1 ? this.#undelivered[0]! : this.#undelivered.join("");
    this.#undelivered = [];
    this.#deliveredAny = true;
    return delta;
  }

  // Concurrent readers (say avalue() during a for-await) share one step instead of racing for entries.
  #advance(): Promise<void> {
    if (!this.#producerStarted) return Promise.reject(new ThunkNotStartedError());
    this.#currentStep ??= this.#step().finally(() => {
      this.#currentStep = null;
    });
    return this.#currentStep;
  }

  async #step(): Promise<void> {
    const entry = await this.#queue.next();
    if (this.#computed || this.#failed) return;
    try {
      if (entry.kind === "chunk") this.#apply(this.#config!.process(entry.chunk, this));
      else if (entry.kind === "end") await this.#complete();
      else if (entry.kind === "fail") {
        this.#fail(entry.error);
        // Release any push still waiting for space: nothing will read after a failure.
        this.#queue.drain();
      }
    } catch (error) {
      // A chunk or post-processing the backend cannot handle fails this thunk and stops its producer.
      this.#fail(error);
      this.#queue.drain();
      this.#abortController.abort(error);
    }
  }

  #apply(delta: ThunkDelta | undefined): void {
    if (!delta) return;
    if (delta.text !== undefined && delta.text.length > 0) {
      this.#value = (this.#value ?? "") + delta.text;
      this.#undelivered.push(delta.text);
    }
    if (delta.thinking !== undefined && delta.thinking.length > 0) {
      this.thinking = (this.thinking ?? "") + delta.thinking;
    }
  }

  async #complete(): Promise<void> {
    // A throw here fails the thunk in #step, and #fail settles it, so observers see the failure.
    await this.#finishOutput();
    this.#settle();
  }

  async #finishOutput(): Promise<void> {
    this.#value ??= "";
    await this.#config!.postProcess?.(this);
    this.#computed = true;
    // postProcess may have parsed already, or recorded why the output is unusable.
    if (this.parsedRepr !== null || this.error !== null) return;
    if (Component.isInstance(this.action)) {
      try {
        this.parsedRepr = (this.action as Component<T>).parse(this);
      } catch (error) {
        // A parse failure is soft: the text is complete and readable, the reason is on `error`.
        if (!ComponentParseError.isInstance(error)) throw error;
        this.error = error;
      }
    } else if (
      this.action === null ||
      this.action instanceof CBlock ||
      ModelOutputThunk.isInstance(this.action)
    ) {
      // Blocks and earlier outputs (the seed allows a thunk as the action) carry no parser: the text is it.
      this.parsedRepr = this.#value as T;
    }
  }

  #fail(error: unknown): void {
    this.#failed = true;
    this.#failure = error;
    this.#settle();
  }
}

function runListener(listener: () => void): void {
  try {
    listener();
  } catch {
    // An observer's bug must not turn a finished generation into a failed one.
  }
}

function checkValue(value: unknown): string | null {
  if (value === null || typeof value === "string") return value;
  throw new BlockValueTypeError("ModelOutputThunk", value, true);
}
