// Unmeasured short generations on every row before `bench ttfb` measures, so each JavaScript row is timed
// as a long-running app or server runs, not in the minutes after it started.
//
// Why so many: V8 runs a request's path in its interpreter and baseline compiler at first, and optimizes a
// function (TurboFan) only once it has run a budget of bytecode with settled type feedback. A function run
// once per request (routing, validation, the option mapping, setting a generation up) reaches that after
// about a thousand requests. `tessera serve` on the tiny model, taking turns with llama-server, 2 tokens
// a request: first token 2.1-2.2 ms (1.00× llama-server) over requests 1-1,000, falling to 1.7 ms
// (0.91×) by 1,750 and 1.5 ms (0.88×) by 3,000 (docs/benchmarks.md, "Round five"). A per-length warm-up
// of 20 runs (--warmup) measured those first requests. C++ rows have nothing to compile, so the warm-up
// changes only the JavaScript rows; every row gets it, so the comparison stays like for like.
import type { BenchTarget } from "./bench-target.js";

export interface WarmUpOptions {
  /** Generations per row. */
  generations: number;
  /** The prompt of the warm-up's `index`-th generation (each one new, as the measured runs' are). */
  prompt: (index: number) => Promise<string>;
  /** Tokens per warm-up generation: the first token's path and a few deltas, not a whole answer. */
  maxTokens: number;
  /** Limit of one generation; past it the generation counts as failed. */
  runTimeoutMs: number;
  /** After this many failures in a row a row's warm-up stops (a row that is down would take the whole budget). */
  maxConsecutiveFailures?: number;
  signal?: AbortSignal;
  /** After each generation: how many are done of all rows' total. */
  onProgress?: (done: number, total: number) => void;
}

export interface WarmUpRecord {
  /** Generations run per row (the same for every row that did not stop early). */
  generations: number;
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
 * Runs `generations` generations on each target, round-robin (each round starts one row later, so no row is
 * always warmed right after the same other row). Failures are counted, not thrown: llama-server ends some
 * streams of the random model's text with an error, as in the measured runs. An abort rethrows.
 */
export async function warmUpTargets(
  targets: ReadonlyArray<BenchTarget>,
  options: WarmUpOptions,
): Promise<WarmUpRecord> {
  const record: WarmUpRecord = {
    generations: options.generations,
    maxTokens: options.maxTokens,
    failed: {},
    stopped: {},
  };
  const limit = options.maxConsecutiveFailures ?? 10;
  const inARow = new Map<string, number>();
  const total = targets.length * options.generations;
  let done = 0;
  let index = 0;
  for (let round = 0; round < options.generations; round++) {
    for (let place = 0; place < targets.length; place++) {
      const target = targets[(round + place) % targets.length]!;
      options.signal?.throwIfAborted();
      // Its remaining rounds were counted as done when it stopped.
      if (target.name in record.stopped) continue;
      const prompt = await options.prompt(index++);
      const error = await generateOnce(target, prompt, options);
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

/** One generation, read to its end and discarded; the error's message, or null when it succeeded. */
async function generateOnce(
  target: BenchTarget,
  prompt: string,
  options: WarmUpOptions,
): Promise<string | null> {
  const timeout = AbortSignal.timeout(options.runTimeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const request = { prompt, maxTokens: options.maxTokens, signal };
  try {
    await target.prepareRun?.(request);
    await target.stream(request, { firstByte() {}, content() {} });
    return null;
  } catch (error) {
    if (timeout.aborted && !options.signal?.aborted) return `timed out after ${options.runTimeoutMs} ms`;
    return error instanceof Error ? error.message.split("\n")[0]! : String(error);
  }
}
