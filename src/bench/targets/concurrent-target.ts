// A row that sends several requests at once to one target (a server started with that many slots) and
// reports, per run, the median of the requests' first tokens: what a user of a shared server waits for.
// Each request gets its own prompt (the run's prompt after its number), so no prefix is shared, and one
// failed request stops the others before the run ends.
import type { BenchTarget, StreamObserver, StreamOutcome, StreamRequest } from "../bench-target.js";
import { median } from "../stats.js";

export class ConcurrentTarget implements BenchTarget {
  readonly name: string;
  readonly transport: "in-process" | "http";
  readonly jitCompiled: boolean;
  readonly #inner: BenchTarget;
  readonly #requests: number;

  constructor(inner: BenchTarget, requests: number) {
    this.#inner = inner;
    this.#requests = requests;
    this.name = inner.name;
    this.transport = inner.transport;
    this.jitCompiled = inner.jitCompiled === true;
  }

  prepare(signal: AbortSignal): Promise<void> {
    return this.#inner.prepare(signal);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  connectionNote(): string | null {
    return this.#inner.connectionNote?.() ?? null;
  }

  /** The inner row's untimed preparation (letting a server that closes connections do so), once per run. */
  async prepareRun(request: StreamRequest): Promise<void> {
    await this.#inner.prepareRun?.(request);
  }

  /**
   * Hands the observer one piece, at the median of the requests' first content arrivals; decode speed
   * is not measured here (a shared server's rate per request is another benchmark).
   */
  async stream(request: StreamRequest, observer: StreamObserver): Promise<StreamOutcome> {
    // One request failing ends the run: its siblings are stopped and awaited, so none streams on into the
    // next row's timed span.
    const siblings = new AbortController();
    // The first request's own failure, not the aborts of its siblings that follow it.
    let firstFailure: { error: unknown } | undefined;
    const signal = AbortSignal.any([request.signal, siblings.signal]);
    const settled = await Promise.allSettled(
      Array.from({ length: this.#requests }, async (_, index) => {
        let first = null as number | null;
        const recorder: StreamObserver = {
          firstByte() {},
          content(text, arrivedAt) {
            if (text !== "") first ??= arrivedAt ?? performance.now();
          },
        };
        try {
          // The number goes first: requests that differ only at the end would share the prompt's prefix,
          // which a server that reuses cached prefixes across slots prefills once for all four.
          await this.#inner.stream(
            { ...request, prompt: `(${index + 1}) ${request.prompt}`, signal },
            recorder,
          );
        } catch (error) {
          // Only the first failure aborts the siblings, so the first catch is always the run's own error.
          if (firstFailure === undefined) {
            firstFailure = { error };
            siblings.abort();
          }
          throw error;
        }
        return first;
      }),
    );
    // Every rejection passed through the catch above, so none is left when there was no failure.
    if (firstFailure !== undefined) throw firstFailure.error;
    const firsts = settled.map((outcome) => (outcome as PromiseFulfilledResult<number | null>).value);
    const arrived = firsts.filter((at): at is number => at !== null);
    const middle = median(arrived);
    if (middle !== null) observer.content("·", middle);
    return { completionTokens: null };
  }
}
