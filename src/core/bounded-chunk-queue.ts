/** What travels from a producer to a thunk's consumer. `end` and `fail` are control entries and bypass the bound. */
export type QueueEntry<C> = { kind: "chunk"; chunk: C } | { kind: "end" } | { kind: "fail"; error: unknown };

/** Returned to the consumer once the queue was drained by a cancellation. */
export type ClosedEntry = { kind: "closed" };

/**
 * A single-consumer FIFO with a bound on chunks. A full queue makes push() wait, so the consumer sets the
 * pace (backpressure); drain() releases every waiting push with `false`.
 */
export class BoundedChunkQueue<C> {
  #entries: QueueEntry<C>[] = [];
  // Chunks queued plus slots reserved for pushes that were woken but have not run yet.
  #occupied = 0;
  #capacity: number;
  #closed = false;
  #finished = false;
  #spaceWaiters: Array<(accepted: boolean) => void> = [];
  #entryWaiter: (() => void) | null = null;

  constructor(capacity = 16) {
    this.#capacity = capacity;
  }

  set capacity(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(
        `Expected a positive integer for the thunk queue capacity but received ${capacity}.`,
      );
    }
    this.#capacity = capacity;
  }

  get capacity(): number {
    return this.#capacity;
  }

  /** Number of entries waiting to be consumed. */
  get size(): number {
    return this.#entries.length;
  }

  /** True once drain() ran: nothing will be accepted any more. */
  get closed(): boolean {
    return this.#closed;
  }

  async push(chunk: C): Promise<boolean> {
    if (this.#closed || this.#finished) return false;
    // Waiting whenever others wait keeps concurrent pushes in call order.
    if (this.#occupied >= this.#capacity || this.#spaceWaiters.length > 0) {
      const accepted = await new Promise<boolean>((resolve) => this.#spaceWaiters.push(resolve));
      if (!accepted || this.#closed || this.#finished) return false;
    } else {
      this.#occupied += 1;
    }
    this.#entries.push({ kind: "chunk", chunk });
    this.#wakeConsumer();
    return true;
  }

  /** Enqueue a control entry (end or fail); only the first one counts. */
  finish(entry: { kind: "end" } | { kind: "fail"; error: unknown }): boolean {
    if (this.#closed || this.#finished) return false;
    this.#finished = true;
    this.#entries.push(entry);
    // A push still waiting for space would land after the end: refuse it now.
    for (const waiter of this.#spaceWaiters.splice(0)) waiter(false);
    this.#wakeConsumer();
    return true;
  }

  /** The next entry, waiting for one if the queue is empty; `closed` after drain(). */
  async next(): Promise<QueueEntry<C> | ClosedEntry> {
    while (this.#entries.length === 0) {
      if (this.#closed) return { kind: "closed" };
      await new Promise<void>((resolve) => {
        this.#entryWaiter = resolve;
      });
    }
    const entry = this.#entries.shift()!;
    if (entry.kind === "chunk") this.#releaseSlot();
    return entry;
  }

  /** Drop everything queued, refuse further entries, release blocked pushes (false) and a waiting consumer. */
  drain(): void {
    this.#closed = true;
    this.#entries = [];
    this.#occupied = 0;
    for (const waiter of this.#spaceWaiters.splice(0)) waiter(false);
    this.#wakeConsumer();
  }

  #releaseSlot(): void {
    const waiter = this.#spaceWaiters.shift();
    // Hand the freed slot straight to the oldest waiting push (it stays occupied), else free it.
    if (waiter) waiter(true);
    else this.#occupied -= 1;
  }

  #wakeConsumer(): void {
    const waiter = this.#entryWaiter;
    this.#entryWaiter = null;
    waiter?.();
  }
}
