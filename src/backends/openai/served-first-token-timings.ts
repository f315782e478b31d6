// tessera serve's first-token debug record, shared by both ends of the protocol: the server writes it
// (src/server/first-token-timings.ts) and `tessera bench ttfb` reads it (src/bench/targets/). It lives
// here, beside the other wire extensions, because bench/ may not import server/.

/** The request header that asks tessera serve to record a request's first token under its value. */
export const timingIdHeader = "x-tessera-timing-id";

let monotonicOffsetMs: number | undefined;

/** The offset from the tightest of a few readings of performance.now() between two of hrtime. */
function measureMonotonicOffsetMs(): number {
  let best = { spread: Number.POSITIVE_INFINITY, offset: 0 };
  for (let sample = 0; sample < 5; sample++) {
    const before = process.hrtime.bigint();
    const now = performance.now();
    const after = process.hrtime.bigint();
    const spread = Number(after - before);
    if (spread < best.spread) best = { spread, offset: Number(before + after) / 2e6 - now };
  }
  return best.offset;
}

/**
 * A `performance.now()` value of this process on the system's monotonic clock (CLOCK_MONOTONIC, ms), the
 * one clock two processes on a machine share exactly. `performance.timeOrigin + now` is not: each Node
 * process sets its `timeOrigin` from a wall-clock reading taken a little apart from the start of its
 * `performance.now()`, so each process is off the wall clock by its own amount (0.7-1.3 ms when this
 * machine was idle, up to 5.6 ms under load, measured per process on the AMD EPYC VM). In one run two
 * processes disagreed by about 3 ms, and "client send + network" read 3.46 ms and "network + client
 * parse" −2.69 ms.
 */
export function monotonicMs(performanceNow: number = performance.now()): number {
  // Both clocks are libuv's hrtime, so the difference is fixed for the life of the process.
  monotonicOffsetMs ??= measureMonotonicOffsetMs();
  return performanceNow + monotonicOffsetMs;
}

/**
 * The body of GET /debug/first-token/<id>: one request's first token on the server, in ms; the stages
 * add up to `serverFirstTokenMs`.
 */
export interface ServedFirstTokenTimings {
  /** From the request's arrival (headers read) to the backend call: body parsing, validation, slot wait. */
  requestMs: number;
  /**
   * The request's arrival on the machine's clock (performance.timeOrigin + now, ms): a client on the same
   * machine times its own send and the network up to here.
   */
  arrivedEpochMs: number;
  /**
   * The same on the system's monotonic clock (`monotonicMs`), which processes on one machine share
   * exactly; absent from servers before 2026-12-03, whose readers fall back to `arrivedEpochMs`.
   */
  arrivedMonotonicMs?: number;
  setupMs: number;
  templateMs: number;
  tokenizeMs: number;
  queueWaitMs: number;
  prefillMs: number;
  firstDeliveryMs: number;
  /** From the thunk handing over the first text to the first write of the response (SSE chunk). */
  firstWriteMs: number;
  /** From the request's arrival to that first write. */
  serverFirstTokenMs: number;
  /**
   * That first write on the machine's clock (performance.timeOrigin + now, ms): a client on the same
   * machine times the network and its parsing from here to its own first read.
   */
  firstWriteEpochMs: number;
  /** The same on the system's monotonic clock (`monotonicMs`); absent from servers before 2026-12-03. */
  firstWriteMonotonicMs?: number;
}
