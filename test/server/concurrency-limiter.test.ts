// The server takes a free slot synchronously (tryAcquire: no promise and no hop before the generation
// starts) and queues only when every slot is held; a burst must still not overtake the queue.
import { describe, expect, it } from "vitest";
import { ConcurrencyLimiter } from "../../src/server/concurrency-limiter.js";
import { ServerBusyError } from "../../src/server/errors/server-busy-error.js";

describe("ConcurrencyLimiter.tryAcquire", () => {
  it("takes a free slot at once and gives null when all are held", () => {
    const limiter = new ConcurrencyLimiter(2, 1);
    const first = limiter.tryAcquire();
    const second = limiter.tryAcquire();
    expect(first).toBeTypeOf("function");
    expect(second).toBeTypeOf("function");
    expect(limiter.active).toBe(2);
    expect(limiter.tryAcquire()).toBeNull();
    first!();
    first!(); // twice is harmless
    expect(limiter.active).toBe(1);
    expect(limiter.tryAcquire()).toBeTypeOf("function");
  });

  it("never takes a slot a waiter is owed", async () => {
    const limiter = new ConcurrencyLimiter(1, 2);
    const held = limiter.tryAcquire()!;
    const waiting = limiter.acquire();
    expect(limiter.waiting).toBe(1);
    held();
    // The slot passed straight to the waiter: a later tryAcquire finds none.
    expect(limiter.tryAcquire()).toBeNull();
    const granted = await waiting;
    expect(limiter.active).toBe(1);
    granted();
    expect(limiter.active).toBe(0);
    await expect(limiter.acquire()).resolves.toBeTypeOf("function");
  });

  it("refuses an aborted signal, and acquire still answers busy past the queue", async () => {
    const limiter = new ConcurrencyLimiter(1, 0);
    expect(() => limiter.tryAcquire(AbortSignal.abort(new Error("gone")))).toThrow("gone");
    expect(limiter.active).toBe(0);
    limiter.tryAcquire();
    await expect(limiter.acquire()).rejects.toBeInstanceOf(ServerBusyError);
  });
});
