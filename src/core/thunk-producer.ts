import type { ModelOutputThunk } from "./model-output-thunk.js";

/** What processing one chunk adds: `text` is appended to the value and yielded as a delta; `thinking` to the reasoning trace. */
export interface ThunkDelta {
  text?: string;
  thinking?: string;
}

/** How a backend feeds a thunk. `process` and `postProcess` run on the consumer side, when output is read. */
export interface ThunkProducerConfig<C, T = string> {
  /** Most chunks queued before push() waits (default 16). */
  capacity?: number;
  /** Turn one chunk into a delta; may also write metadata on the thunk. Throwing fails the thunk. */
  process(chunk: C, thunk: ModelOutputThunk<T>): ThunkDelta | undefined;
  /**
   * Runs once after end(), before the thunk counts as computed: fill metadata, tool calls, parsedRepr.
   * Throwing fails the thunk. When parsedRepr is still null afterwards the action's parse() runs.
   */
  postProcess?(thunk: ModelOutputThunk<T>): void | Promise<void>;
}

/** The producer side of a thunk, held by a backend. */
export interface ThunkProducer<C> {
  /** Queue a chunk; waits while the queue is full. Resolves false once the generation was cancelled: stop producing. */
  push(chunk: C): Promise<boolean>;
  /** The generation finished normally. */
  end(): void;
  /** The generation failed: the error surfaces on avalue()/astream()/iteration; text so far stays in value. */
  fail(error: unknown): void;
  /** Aborted on cancelGeneration(), aclose() or leaving a for-await early; its reason is the cancellation error. */
  readonly signal: AbortSignal;
}
