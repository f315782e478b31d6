// Unmeasured short generations on the JavaScript rows before `bench ttfb` measures, so each is timed as a
// long-running app or server runs, not in the minutes after it started.
//
// Why so many: V8 runs a request's path in its interpreter and baseline compiler at first, and optimizes a
// function (TurboFan) only once it has run a budget of bytecode with settled type feedback. A function run
// once per request (routing, validation, the option mapping, setting a generation up) reaches that after
// a thousand requests or more. `tessera serve` on the tiny model, taking turns with llama-server, 2 tokens
// a request: 0.97× llama-server's first token over its first 250 requests, 0.90× by 500-1,500, 0.83-0.84×
// from 2,750 (`node benchmarks/serve-jit-warm-up.mjs`, benchmarks/results/serve-jit-warm-up.md). The 20
// warm-up runs per length (--warmup) measured those first requests.
//
// Only rows whose serving path runs in V8 here are warmed (BenchTarget.jitCompiled). A C++ row has nothing
// to compile, and llama-server with 4 slots got slower over the same thousands of requests (first token
// 6.5 → 14.0 ms at 16 tokens): warming it would have measured that, not the stack at its best. A remote
// provider would be sent thousands of requests.
import type { BenchTarget } from "./bench-target.js";

export interface WarmUpOptions {
  /** Generations per row. */
  generations: number;
  /**
   * One unmeasured generation on `target`, a new prompt each time, as the measured runs' (the runner's
   * own measureOnce, so the warm-up runs the code it warms); its error's message, or null.
   */
  generate: (target: BenchTarget) => Promise<string | null>;
  /** Tokens per warm-up generation, for the record. */
  maxTokens: number;
  /**
   * Rounds start only within this many milliseconds of the warm-up's start (default: no limit), so a
   * default warm-up on a slow model takes minutes, not an hour; every row runs the same rounds.
   */
  maxMs?: number;
  /** After this many failures in a row a row's warm-up stops (a row that is down would take the whole budget). */
  maxConsecutiveFailures?: number;
  signal?: AbortSignal;
  /** After each generation: how many are done of all rows' total. */
  onProgress?: (done: number, total: number) => void;
}

export interface WarmUpRecord {
  /** Generations run per warmed row (the same for every row that did not stop early). */
  generations: number;
  /** The time limit that ended the warm-up before its `generations` were asked for; null when none did. */
  stoppedByLimitMs: number | null;
  /** The rows warmed: those whose serving path runs in V8 here (BenchTarget.jitCompiled). */
  rows: string[];
  maxTokens: number;
  /** Warm-up generations that failed, per row that had any. */
  failed: Record<string, number>;
  /**
   * Rows whose warm-up stopped after `maxConsecutiveFailures` failures in a row, with the last one's
   * message; their measured runs then start from a cold (or broken) row, and say so in their errors.
   */
  stopped: Record<string, string>;
}

/**
 * Runs `generations` generations on each of `targets` (the runner passes those that run JavaScript here,
 * BenchTarget.jitCompiled), round-robin: each round starts one row later, so no row is always warmed
 * right after the same other row. Failures are counted, not thrown (a row may fail now and then, as in
 * the measured runs). An abort rethrows.
 */
export async function warmUpTargets(
  targets: ReadonlyArray<BenchTarget>,
  options: WarmUpOptions,
): Promise<WarmUpRecord> {
  const record: WarmUpRecord = {
    generations: options.generations,
    stoppedByLimitMs: null,
    rows: targets.map((target) => target.name),
    maxTokens: options.maxTokens,
    failed: {},
    stopped: {},
  };
  const limit = options.maxConsecutiveFailures ?? 10;
  const inARow = new Map<string, number>();
  const total = targets.length * options.generations;
  let done = 0;
  const startedAt = performance.now();
  for (let round = 0; round < options.generations; round++) {
    if (options.maxMs !== undefined && performance.now() - startedAt >= options.maxMs) {
      record.generations = round;
      record.stoppedByLimitMs = options.maxMs;
      break;
    }
    for (let place = 0; place < targets.length; place++) {
      const target = targets[(round + place) % targets.length]!;
      options.signal?.throwIfAborted();
      // Its remaining rounds were counted as done when it stopped.
      if (target.name in record.stopped) continue;
      const error = await options.generate(target);
      options.signal?.throwIfAborted();
      if (error === null) {
        inARow.set(target.name, 0);
      } else {
        record.failed[target.name] = (record.failed[target.name] ?? 0) + 1;
        const count = (inARow.get(target.name) ?? 0) + 1;
        inARow.set(target.name, count);
        if (count >= limit) {
          record.stopped[target.name] = `${count} warm-up generations failed in a row; the last: ${error}`;
          // Its remaining rounds count as done, so the progress still reaches its total.
          done += options.generations - round - 1;
        }
      }
      done++;
      options.onProgress?.(done, total);
    }
  }
  return record;
}
