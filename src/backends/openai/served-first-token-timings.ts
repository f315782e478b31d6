// tessera serve's first-token debug record, shared by both ends of the protocol: the server writes it
// (src/server/first-token-timings.ts) and `tessera bench ttfb` reads it (src/bench/targets/). It lives
// here, beside the other wire extensions, because bench/ may not import server/.

/** The request header that asks tessera serve to record a request's first token under its value. */
export const timingIdHeader = "x-tessera-timing-id";

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
}
