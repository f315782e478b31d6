import { ServerBusyError } from "./errors/server-busy-error.js";

/**
 * Up to `parallel` holders at once, then up to `queue` waiters in arrival order; beyond that acquire()
 * throws ServerBusyError at once. A waiter whose signal aborts (its client left) leaves the queue.
 */
export class ConcurrencyLimiter {
  readonly parallel: number;
  readonly queue: number;
  #active = 0;
  readonly #waiters: Array<{ grant: () => void }> = [];

  constructor(parallel: number, queue: number) {
    if (!Number.isInteger(parallel) || parallel < 1) {
      throw new RangeError(`Expected a positive integer for parallel but received ${parallel}.`);
    }
    if (!Number.isInteger(queue) || queue < 0) {
      throw new RangeError(`Expected a non-negative integer for queue but received ${queue}.`);
    }
    this.parallel = parallel;
    this.queue = queue;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * A slot now, or null when none is free (then acquire() queues): no promise and no hop on the common
   * path. The returned function releases it (calling it twice is harmless).
   */
  tryAcquire(signal?: AbortSignal): (() => void) | null {
    signal?.throwIfAborted();
    // A free slot means nobody waits: released slots pass straight to waiters.
    if (this.#active >= this.parallel) return null;
    this.#active += 1;
    return this.#releaser();
  }

  /** Wait for a slot; the returned function releases it (calling it twice is harmless). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    const free = this.tryAcquire(signal);
    if (free !== null) return free;
    if (this.#waiters.length >= this.queue) throw new ServerBusyError(this.parallel, this.queue);
    await new Promise<void>((resolve, reject) => {
      const waiter = { grant: resolve };
      this.#waiters.push(waiter);
      signal?.addEventListener(
        "abort",
        () => {
          const index = this.#waiters.indexOf(waiter);
          if (index !== -1) {
            this.#waiters.splice(index, 1);
            reject(signal.reason);
          }
        },
        { once: true },
      );
    });
    return this.#releaser();
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      // The slot passes straight to the next waiter, so a burst cannot overtake the queue.
      if (next !== undefined) next.grant();
      else this.#active -= 1;
    };
  }
}
