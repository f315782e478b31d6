/**
 * Decode speed from arrival times: the tokens that came after the first arrival, over the time from the
 * first arrival to the last. Pieces that arrived together share an arrival time (one read over HTTP, one
 * turn of the event loop in-process; see arrival-clock.ts); with a single arrival there is no span to
 * measure, so both figures are null ("n/a"), never a rate made of parsing microseconds. A piece counts
 * as one token (targets hand over one piece per token unless the reader fell behind).
 */
export function decodeRate(
  arrivals: readonly number[],
  completionTokens: number,
): { tokensPerSecond: number | null; interTokenMs: number | null } {
  const first = arrivals[0];
  const last = arrivals[arrivals.length - 1];
  if (first === undefined || last === undefined || last <= first) {
    return { tokensPerSecond: null, interTokenMs: null };
  }
  const inFirstArrival = arrivals.filter((at) => at === first).length;
  const after = Math.max(completionTokens - inFirstArrival, arrivals.length - inFirstArrival);
  const span = last - first;
  return { tokensPerSecond: (after * 1000) / span, interTokenMs: span / after };
}
