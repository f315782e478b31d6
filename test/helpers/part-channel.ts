// A push-style source of stream parts for tests: push() resolves true once the thunk's queue took the
// part (it waits while the queue is full) and false once the thunk stopped reading, as a backend sees it.
import type { ConsumeOptions, ModelOutputThunk, StreamPart } from "../../src/core/index.js";

type Item =
  | { kind: "part"; part: StreamPart; resolve: (accepted: boolean) => void }
  | { kind: "end" }
  | { kind: "fail"; error: unknown };

export interface PartChannel {
  /** A part, or a string as a text delta. */
  push(part: StreamPart | string): Promise<boolean>;
  end(): void;
  fail(error: unknown): void;
  /** The signal the thunk handed its source. */
  readonly signal: AbortSignal;
}

export function partChannel<T>(thunk: ModelOutputThunk<T>, options: ConsumeOptions = {}): PartChannel {
  const items: Item[] = [];
  let wake: (() => void) | null = null;
  let closed = false;
  let sourceSignal: AbortSignal | null = null;
  const enqueue = (item: Item) => {
    items.push(item);
    const waiter = wake;
    wake = null;
    waiter?.();
  };
  async function* parts(signal: AbortSignal): AsyncGenerator<StreamPart, void, undefined> {
    let current: Item | null = null;
    const onAbort = () => wake?.();
    signal.addEventListener("abort", onAbort);
    try {
      while (true) {
        while (items.length === 0 && !signal.aborted) await new Promise<void>((resolve) => (wake = resolve));
        if (signal.aborted) return;
        current = items.shift()!;
        if (current.kind === "end") return;
        if (current.kind === "fail") throw current.error;
        yield current.part;
        current.resolve(true);
      }
    } finally {
      closed = true;
      signal.removeEventListener("abort", onAbort);
      if (current?.kind === "part") current.resolve(false);
      for (const item of items.splice(0)) if (item.kind === "part") item.resolve(false);
    }
  }
  thunk.consume((signal) => {
    sourceSignal = signal;
    return parts(signal);
  }, options);
  return {
    push(part) {
      if (closed) return Promise.resolve(false);
      const resolved: StreamPart = typeof part === "string" ? { type: "text-delta", text: part } : part;
      return new Promise<boolean>((resolve) => enqueue({ kind: "part", part: resolved, resolve }));
    },
    end: () => enqueue({ kind: "end" }),
    fail: (error) => enqueue({ kind: "fail", error }),
    get signal() {
      return sourceSignal!;
    },
  };
}
