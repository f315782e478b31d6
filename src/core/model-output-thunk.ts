import { BoundedChunkQueue } from "./bounded-chunk-queue.js";
import { CBlock } from "./cblock.js";
import { Component } from "./component.js";
import type { Context } from "./context.js";
import { BlockValueTypeError } from "./errors/block-value-type-error.js";
import { ComponentParseError } from "./errors/component-parse-error.js";
import { GenerationAbortedError } from "./errors/generation-aborted-error.js";
import { GenerationCancelledError } from "./errors/generation-cancelled-error.js";
import { ThunkAlreadyComputedError } from "./errors/thunk-already-computed-error.js";
import { ThunkAlreadyIteratedError } from "./errors/thunk-already-iterated-error.js";
import { ThunkNotStartedError } from "./errors/thunk-not-started-error.js";
import { ThunkProducerError } from "./errors/thunk-producer-error.js";
import { ThunkSourceError } from "./errors/thunk-source-error.js";
import type { GenerateLog } from "./generate-log.js";
import { GenerateType } from "./generate-type.js";
import { GenerationMetadata } from "./generation-metadata.js";
import type { HookRegistry } from "./hooks.js";
import type { LogitsStep, LogitsTrace } from "./logits-trace.js";
import type { ModelOptions } from "./model-options.js";
import type { ModelToolCall } from "./model-tool-call.js";
import type { RawProviderResponse } from "./raw-provider-response.js";
import type { Span } from "./span.js";
import type { StreamPart, StreamPartSource } from "./stream-part.js";

/** How a thunk reads a backend's parts. */
export interface ConsumeOptions {
  /** Most parts queued ahead of the reader before the source is no longer pulled (default 16). */
  capacity?: number;
  /** performance.now() when the backend received the request: `ttfbMs` counts from here (default: now). */
  startedAt?: number;
  /**
   * The caller's AbortSignal. When it fires, the source's signal aborts and the thunk fails with a
   * GenerationAbortedError after the parts already queued; the thunk is the only one listening to it.
   */
  signal?: AbortSignal;
}

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
  // The caller's signal fired: the thunk will fail with this once its reader reaches the end of the queue,
  // but the generation has ended now, so observers see it at once.
  #abortFailure: unknown = null;
  #producerStarted = false;
  // The one buffer between a backend and the reader: the backend's source is pulled only while it has room.
  readonly #queue = new BoundedChunkQueue<StreamPart>();
  readonly #abortController = new AbortController();
  #currentStep: Promise<StreamPart | null> | null = null;
  // Characters of the value handed to text readers. A reader gets each text part as it is applied (no
  // second buffer); only text applied by another reader (avalue() during a for-await) is sliced from the
  // value, since slicing a growing string on every token would be quadratic.
  #delivered = 0;
  #deliveredAny = false;
  #iteratorTaken = false;
  #settled = false;
  #settledListeners: Array<() => void> | null = null;

  constructor(value: string | null = null, options: ModelOutputThunkOptions<T> = {}) {
    this.#value = checkValue(value);
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
    this.#delivered = this.#deliveredAny ? (value?.length ?? 0) : 0;
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
    return this.#failed ? this.#failure : this.#abortFailure;
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

  /**
   * Read a backend's parts into this thunk; a backend calls it once per thunk. The source is pulled ahead
   * of the reader by at most `capacity` parts, so a slow reader slows the backend down; the source's
   * signal aborts on cancellation (cancelGeneration, aclose, leaving a for-await) and on `options.signal`.
   */
  consume(source: StreamPartSource, options: ConsumeOptions = {}): void {
    if (this.#producerStarted) throw new ThunkProducerError("it already has a source");
    if (this.#computed) throw new ThunkProducerError("it is already computed");
    const { capacity } = options;
    // Checked before anything starts: a refused call leaves the thunk as it was, not waiting forever.
    if (capacity !== undefined && (!Number.isInteger(capacity) || capacity < 1)) {
      throw new ThunkProducerError(
        `the capacity option must be a positive integer but is ${String(capacity)}`,
        "Pass a capacity of 1 or more, or leave it out for the default (16).",
      );
    }
    this.#producerStarted = true;
    if (capacity !== undefined) this.#queue.capacity = capacity;
    this.generateType = GenerateType.async;
    const startedAt = options.startedAt ?? performance.now();
    let parts: AsyncIterable<StreamPart>;
    try {
      parts = source(this.#abortController.signal);
    } catch (error) {
      // A source that throws before returning its stream fails the thunk like one that throws later.
      this.#queue.finish({ kind: "fail", error });
      return;
    }
    const callerSignal = options.signal;
    if (callerSignal !== undefined) {
      const onAbort = () => this.#abortByCaller(callerSignal.reason);
      if (callerSignal.aborted) onAbort();
      else {
        callerSignal.addEventListener("abort", onAbort, { once: true });
        this.onSettled(() => callerSignal.removeEventListener("abort", onAbort));
      }
    }
    void this.#pump(parts, startedAt);
  }

  /** The complete output, waiting for the generation if needed. Rejects with the generation's error if it failed. */
  async avalue(): Promise<string> {
    while (!this.#computed && !this.#failed) await this.#advance();
    if (this.#failed) throw this.#failure;
    return this.#value ?? "";
  }

  /**
   * Only the text received since the previous call (possibly "" when the output was reasoning or a tool
   * call). Waits for at least one part of output. Throws ThunkAlreadyComputedError when called after the generation finished.
   */
  async astream(): Promise<string> {
    if (this.#computed) throw new ThunkAlreadyComputedError();
    if (this.#failed) throw this.#failure;
    const pieces: string[] = [];
    const collect = (part: StreamPart | null) => {
      if (part?.type === "text-delta") pieces.push(part.text);
    };
    // Parts without output (logits, metadata, usage) come ahead of the text they describe: wait past them.
    while (this.#pendingLength() === 0 && !this.#computed && !this.#failed) {
      const part = await this.#advance();
      collect(part);
      if (part === null || carriesOutput(part)) break;
    }
    // Take what was already queued when we got here, without waiting for more. Counting it first matters:
    // a producer that keeps up would otherwise refill the queue forever and defeat the backpressure.
    for (let queued = this.#queue.size; queued > 0 && !this.#computed && !this.#failed; queued -= 1) {
      collect(await this.#advance());
    }
    if (this.#failed) throw this.#failure;
    return this.#deliver(pieces.length === 1 ? pieces[0]! : pieces.join(""));
  }

  /** Text deltas as they arrive. Single consumer: a second iterator throws ThunkAlreadyIteratedError. */
  [Symbol.asyncIterator](): AsyncIterator<string> {
    this.#takeIterator();
    return this.#read(textOf);
  }

  /**
   * The stream parts as this thunk applies them, for readers that map a generation onto another protocol
   * (the server's SSE chunks). Text arrives as `text-delta` parts, reasoning, tool calls, logits, usage and
   * the finish reason as their own parts; a failure is thrown, as from `for await`. It is the thunk's one
   * iterator (a second throws ThunkAlreadyIteratedError), and leaving it early cancels the generation.
   * Read it alone: parts that another reader (say avalue()) applies meanwhile are not replayed, except text.
   */
  parts(): AsyncIterable<StreamPart> {
    this.#takeIterator();
    const iterator = this.#read((part) => part);
    return { [Symbol.asyncIterator]: () => iterator };
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

  #takeIterator(): void {
    if (this.#iteratorTaken) throw new ThunkAlreadyIteratedError();
    this.#iteratorTaken = true;
  }

  /** The applied parts, each mapped (null: skipped); text first from what is pending, then part by part. */
  async *#read<R>(map: (part: StreamPart) => R | null): AsyncGenerator<R, void, undefined> {
    let finished = false;
    try {
      while (true) {
        const delta = this.#deliver("");
        if (delta.length > 0) {
          const mapped = map({ type: "text-delta", text: delta });
          if (mapped !== null) yield mapped;
        } else if (this.#failed) {
          finished = true;
          throw this.#failure;
        } else if (this.#computed) {
          finished = true;
          return;
        } else {
          const part = await this.#advance();
          if (part === null) continue;
          let mapped: R | null;
          if (part.type === "text-delta") {
            const text = this.#deliver(part.text);
            mapped = text.length === 0 ? null : map(text === part.text ? part : { type: "text-delta", text });
          } else mapped = map(part);
          if (mapped !== null) yield mapped;
        }
      }
    } finally {
      // Leaving a for-await early must not leave the generation running.
      if (!finished) await this.aclose();
    }
  }

  // Characters applied but not handed to a text reader yet.
  #pendingLength(): number {
    return (this.#value?.length ?? 0) - this.#delivered;
  }

  /**
   * Hand out the text applied since the last delivery. `applied` is the text this reader's own steps
   * applied: when it is all that is pending it is returned as is; otherwise (another reader advanced too,
   * or the value was set by hand) the pending text is cut from the value.
   */
  #deliver(applied: string): string {
    const pending = this.#pendingLength();
    if (pending <= 0) return "";
    const delta = pending === applied.length ? applied : this.#value!.slice(this.#delivered);
    this.#delivered += delta.length;
    this.#deliveredAny = true;
    return delta;
  }

  // Concurrent readers (say avalue() during a for-await) share one step instead of racing for entries.
  // Resolves to the part the step applied (null for the end, a failure or a cancellation).
  #advance(): Promise<StreamPart | null> {
    if (!this.#producerStarted) return Promise.reject(new ThunkNotStartedError());
    this.#currentStep ??= this.#step().finally(() => {
      this.#currentStep = null;
    });
    return this.#currentStep;
  }

  async #step(): Promise<StreamPart | null> {
    const entry = await this.#queue.next();
    if (this.#computed || this.#failed) return null;
    try {
      if (entry.kind === "chunk") {
        this.#apply(entry.chunk);
        return entry.chunk;
      }
      if (entry.kind === "end") await this.#complete();
      else if (entry.kind === "fail") {
        this.#fail(entry.error);
        // Release any push still waiting for space: nothing will read after a failure.
        this.#queue.drain();
      }
    } catch (error) {
      // Output that cannot be finished (a parse step that throws) fails this thunk and stops its source.
      this.#fail(error);
      this.#queue.drain();
      this.#abortController.abort(error);
    }
    return null;
  }

  /** Pull the source into the queue; the queue's bound pauses the pull while the reader is behind. */
  async #pump(parts: AsyncIterable<StreamPart>, startedAt: number): Promise<void> {
    const queue = this.#queue;
    let iterator: AsyncIterator<StreamPart> | null = null;
    // The finish part closes the output: parts after it are ignored (a second finish does not overwrite
    // the first), though the source is still read to its end, since it may yet fail (llama.cpp's run sends
    // the finish reason "error" and then throws).
    let finished = false;
    try {
      iterator = parts[Symbol.asyncIterator]();
      while (true) {
        const next = await iterator.next();
        if (next.done) {
          queue.finish({ kind: "end" });
          return;
        }
        const part = next.value;
        // The one writer of ttfbMs: the first part of any kind that reaches this thunk.
        if (this.generation.ttfbMs === null && !queue.closed && !this.#failed) {
          this.generation.ttfbMs = performance.now() - startedAt;
        }
        if (part.type === "error") {
          queue.finish({ kind: "fail", error: part.error });
          break;
        }
        if (finished) continue;
        if (part.type === "finish") finished = true;
        if (!(await queue.push(part))) break;
      }
    } catch (error) {
      queue.finish({ kind: "fail", error });
      return;
    }
    // The reader left or the source reported a failure: let the source release what it holds.
    try {
      await iterator?.return?.();
    } catch {
      // The source failed while closing; the thunk has already settled.
    }
  }

  /** The caller's signal fired: the parts already queued stay readable, then the abort error. */
  #abortByCaller(reason: unknown): void {
    if (this.#computed || this.#failed) return;
    const error = new GenerationAbortedError(this.#value ?? "", reason);
    this.#queue.finish({ kind: "fail", error });
    this.#abortController.abort(error);
    // The generation has ended even if nobody reads it: observers (telemetry, the caller's own abort
    // listener) must not wait for a reader that may never come.
    this.#abortFailure = error;
    this.#settle();
  }

  #apply(part: StreamPart): void {
    const generation = this.generation;
    switch (part.type) {
      case "text-delta":
        if (part.text.length > 0) this.#value = (this.#value ?? "") + part.text;
        break;
      case "reasoning-delta":
        if (part.text.length > 0) this.thinking = (this.thinking ?? "") + part.text;
        break;
      case "tool-call":
        this.toolCalls ??= [];
        this.toolCalls.push(part.toolCall);
        break;
      case "logits":
        if (part.processed !== undefined) {
          generation.logits ??= emptyTrace("processed", generation.provider);
          appendSteps(generation.logits.steps, part.processed);
        }
        if (part.raw !== undefined) {
          generation.rawLogits ??= emptyTrace("raw", generation.provider);
          appendSteps(generation.rawLogits.steps, part.raw);
        }
        break;
      case "response-metadata":
        if (part.id !== undefined) generation.responseId = part.id;
        if (part.model !== undefined) generation.responseModel = part.model;
        break;
      case "usage":
        generation.usage = { ...part.usage };
        break;
      case "finish":
        generation.finishReasons = part.choiceReasons === undefined ? [part.reason] : [...part.choiceReasons];
        break;
      case "error":
        // The pump turns an error part into the failure entry; it is never queued.
        break;
    }
  }

  async #complete(): Promise<void> {
    // A throw here fails the thunk in #step, and #fail settles it, so observers see the failure.
    await this.#finishOutput();
    this.#settle();
  }

  async #finishOutput(): Promise<void> {
    this.#value ??= "";
    this.#computed = true;
    // The backend may have parsed already (a structured-output format), or recorded why the output is unusable.
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
    // Readers and the server need an error to report: a bare null or undefined tells them nothing.
    this.#failure = error === null || error === undefined ? new ThunkSourceError(error) : error;
    this.#settle();
  }
}

function textOf(part: StreamPart): string | null {
  return part.type === "text-delta" ? part.text : null;
}

function carriesOutput(part: StreamPart): boolean {
  return part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-call";
}

function emptyTrace(kind: "raw" | "processed", provider: string | null): LogitsTrace {
  return { kind, source: provider ?? "unknown", topK: null, vocabSize: null, steps: [] };
}

// A loop, not push(...steps): a spread of a long batch would overflow the call stack.
function appendSteps(target: LogitsStep[], steps: readonly LogitsStep[]): void {
  for (const step of steps) target.push(step);
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
