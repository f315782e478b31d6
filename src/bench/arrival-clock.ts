/**
 * When a piece reached the reader, as the reader could tell pieces apart: every piece handed over in one
 * turn of the event loop gets the time of the turn's first piece. A late JS thread finds the tokens the
 * decode thread buffered meanwhile and hands them over back to back, microseconds apart; stamped one by
 * one they would read as tens of thousands of tokens per second. The turn ends when a setImmediate
 * callback runs, which is after every microtask and I/O callback of the turn.
 */
export function createArrivalClock(now: () => number = () => performance.now()): () => number {
  let turnStartedAt: number | null = null;
  return () => {
    if (turnStartedAt === null) {
      turnStartedAt = now();
      setImmediate(() => {
        turnStartedAt = null;
      });
    }
    return turnStartedAt;
  };
}
