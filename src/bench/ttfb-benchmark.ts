// The latency benchmark: every target streams the same prompt lengths, N runs each with unique prompts,
// interleaved (run 1 of every target, then run 2, ...) so a slow minute on the machine hits all rows alike,
// the rows in a new random order each run (run-order.ts says why).
// Failures are counted as an error rate and never enter the latency figures.

import { setImmediate as nextTurn } from "node:timers/promises";
import { createArrivalClock } from "./arrival-clock.js";
import type { BenchTarget, StreamObserver } from "./bench-target.js";
import { decodeRate } from "./decode-rate.js";
import { BenchTargetUnavailableError } from "./errors/bench-target-unavailable-error.js";
import { type FirstTokenStageTimes, firstTokenStages, unaccountedMs } from "./first-token-stages.js";
import { type MachineInfo, machineInfo } from "./machine-info.js";
import { comparePaired, type PairedComparison } from "./paired-comparison.js";
import { runDeadline } from "./run-deadline.js";
import { type RunOrder, runOrders } from "./run-order.js";
import { type SampleSummary, summarize } from "./stats.js";
import { type WarmUpRecord, warmUpTargets } from "./ttfb-warm-up.js";
import { buildUniquePrompt, randomSalt, type SizedPrompt } from "./unique-prompts.js";

export interface TtfbOptions {
  promptTokens: number[];
  runs: number;
  maxTokens: number;
  /** Unmeasured runs per target before measuring (model warm-up, first HTTP connection). */
  warmupRuns?: number;
  /**
   * Unmeasured short generations per target before any prompt length (default 0), so JavaScript rows are
   * timed with their request path compiled, as a long-running app or server is (ttfb-warm-up.ts says why).
   * Each has a new prompt of the shortest length and at most `jitWarmUpMaxTokens` tokens.
   */
  jitWarmUp?: number;
  /** Rounds of the JIT warm-up start only within this many milliseconds of its start (default: no limit). */
  jitWarmUpMaxMs?: number;
  /** Recorded only: the HTTP rows were built to open a new connection per request (TtfbTargetOptions). */
  newConnections?: boolean;
  /** Tokens per warm-up generation (default 4, at most maxTokens). */
  jitWarmUpMaxTokens?: number;
  /** Per-run limit; a run past it is a failure. */
  runTimeoutMs?: number;
  /** Counts prompt tokens; without it prompt sizes are estimated. */
  countTokens?: (text: string) => Promise<number>;
  onProgress?: (progress: { done: number; total: number; label: string }) => void;
  signal?: AbortSignal;
  /** Rows to compare run by run (target name, reference name); pairs naming a missing row are left out. */
  comparisons?: ReadonlyArray<{ target: string; reference: string }>;
  /** The rows' order within each run: shuffled anew (default) or as listed. */
  order?: RunOrder;
  /** Seeds the shuffles (default: random); recorded in the result's settings, so an order can be replayed. */
  orderSeed?: number;
}

export interface TtfbRunRecord {
  target: string;
  promptTokens: number;
  run: number;
  /** The row's place in its run's order (0: first). */
  position: number;
  ok: boolean;
  error?: string;
  firstByteMs?: number | null;
  firstContentMs?: number | null;
  totalMs?: number;
  completionTokens?: number;
  /**
   * Tokens per second after the first arrival (decode speed as the client sees it); null ("n/a") when
   * every token arrived in one read.
   */
  tokensPerSecond?: number | null;
  /**
   * Mean gap between tokens after the first arrival: (last arrival − first arrival) / tokens after the
   * first arrival. A mean per run rather than per-read gaps, because targets batch differently (a server
   * may flush several SSE events in one write).
   */
  interTokenMs?: number | null;
  /** Where the first token's time went (rows that report it), as the target measured each stage. */
  stages?: FirstTokenStageTimes;
  /** firstContentMs (this runner's clock) minus the sum of `stages`: time no stage covers. */
  unaccountedMs?: number;
}

export interface TtfbRow {
  target: string;
  transport: "in-process" | "http";
  promptTokens: number;
  runs: number;
  errors: number;
  errorRate: number;
  skipped: string | null;
  firstByteMs: SampleSummary;
  firstContentMs: SampleSummary;
  interTokenMs: SampleSummary;
  tokensPerSecond: SampleSummary;
  /** Median of each first-token stage over the successful runs; null when the row does not report them. */
  stages: FirstTokenStageTimes | null;
  /** Median over the runs of each run's unaccounted time; null when the row does not report stages. */
  unaccountedMs: number | null;
}

export interface TtfbResult {
  benchmark: "ttfb";
  createdAt: string;
  machine: MachineInfo;
  settings: {
    promptTokens: number[];
    runs: number;
    maxTokens: number;
    warmupRuns: number;
    /** The warm-up generations every row ran before the first prompt length; null when none ran. */
    jitWarmUp: WarmUpRecord | null;
    /** Rows whose server did not keep connections alive, and what it did (BenchHttpClient). */
    connectionNotes?: Record<string, string>;
    /** The HTTP rows opened a new connection per request. */
    newConnections?: boolean;
    promptTokensMeasured: boolean;
    /**
     * The measured prompts' token counts as the sizing tokenizer counted them, per requested length (in
     * the order listed): a length a tokenizer cannot hit exactly shows here. Absent when estimated.
     */
    promptTokenRanges?: Array<{ promptTokens: number; min: number; max: number }>;
    /** The rows' order within each run, and the seed of its shuffles (null for a fixed order). */
    order: RunOrder;
    orderSeed: number | null;
  };
  rows: TtfbRow[];
  /** First token of each compared row over its reference's, run by run (same prompt length and run). */
  comparisons: PairedComparison[];
  runs: TtfbRunRecord[];
}

/** The first-token comparisons of `records`, per prompt length, for the pairs whose rows both ran. */
export function compareFirstTokens(
  records: ReadonlyArray<TtfbRunRecord>,
  promptLengths: ReadonlyArray<number>,
  runs: number,
  pairs: ReadonlyArray<{ target: string; reference: string }>,
): PairedComparison[] {
  const series = (target: string, promptTokens: number) => {
    const values: Array<number | null> = Array.from({ length: runs }, () => null);
    for (const record of records) {
      if (record.target === target && record.promptTokens === promptTokens && record.ok)
        values[record.run] = record.firstContentMs ?? null;
    }
    return values;
  };
  const names = new Set(records.map((record) => record.target));
  const comparisons: PairedComparison[] = [];
  for (const { target, reference } of pairs) {
    if (!names.has(target) || !names.has(reference)) continue;
    for (const promptTokens of promptLengths) {
      comparisons.push(
        comparePaired(
          target,
          reference,
          "first token ms",
          series(target, promptTokens),
          series(reference, promptTokens),
          promptTokens,
        ),
      );
    }
  }
  return comparisons;
}

function emptyRow(target: BenchTarget, promptTokens: number, skipped: string | null): TtfbRow {
  const none = summarize([]);
  return {
    target: target.name,
    transport: target.transport,
    promptTokens,
    runs: 0,
    errors: 0,
    errorRate: 0,
    skipped,
    firstByteMs: none,
    firstContentMs: none,
    interTokenMs: none,
    tokensPerSecond: none,
    stages: null,
    unaccountedMs: null,
  };
}

function medianStages(records: ReadonlyArray<TtfbRunRecord>): FirstTokenStageTimes | null {
  const measured = records.flatMap((record) => (record.stages === undefined ? [] : [record.stages]));
  if (measured.length === 0) return null;
  const medians = {} as FirstTokenStageTimes;
  for (const stage of firstTokenStages) medians[stage] = summarize(measured.map((s) => s[stage])).median ?? 0;
  return medians;
}

async function measureOnce(
  target: BenchTarget,
  prompt: string,
  maxTokens: number,
  timeoutMs: number,
  outer?: AbortSignal,
): Promise<Omit<TtfbRunRecord, "target" | "promptTokens" | "run" | "position">> {
  const deadline = runDeadline(timeoutMs, outer);
  const { signal } = deadline;
  let firstByteAt: number | null = null;
  const contentTimes: number[] = [];
  // Targets that read their pieces in-process give no read time: a piece arrives with its event-loop turn.
  const arrival = createArrivalClock();
  const observer: StreamObserver = {
    firstByte() {
      firstByteAt ??= performance.now();
    },
    content(text, arrivedAt) {
      if (text === "") return;
      const now = arrivedAt ?? arrival();
      firstByteAt ??= now;
      contentTimes.push(now);
    },
  };
  let started = performance.now();
  try {
    await target.prepareRun?.({ prompt, maxTokens, signal });
    started = performance.now();
    const outcome = await target.stream({ prompt, maxTokens, signal }, observer);
    const finished = performance.now();
    const first = contentTimes[0];
    const completionTokens = outcome.completionTokens ?? contentTimes.length;
    const rate = decodeRate(contentTimes, completionTokens);
    const firstContentMs = first === undefined ? null : first - started;
    // The stages as the target measured them; the first token is this runner's own, so whatever they
    // miss or count twice shows as the unaccounted time instead of being folded into a stage.
    const stages = firstContentMs === null ? undefined : outcome.firstToken?.stages;
    return {
      ok: true,
      firstByteMs: firstByteAt === null ? null : firstByteAt - started,
      firstContentMs,
      totalMs: finished - started,
      completionTokens,
      ...rate,
      ...(stages !== undefined &&
        firstContentMs !== null && { stages, unaccountedMs: unaccountedMs(firstContentMs, stages) }),
    };
  } catch (error) {
    const reason = deadline.expired ? `timed out after ${timeoutMs} ms` : undefined;
    return { ok: false, error: reason ?? (error instanceof Error ? error.message : String(error)) };
  } finally {
    deadline.clear();
  }
}

export async function runTtfbBenchmark(
  targets: ReadonlyArray<BenchTarget>,
  options: TtfbOptions,
): Promise<TtfbResult> {
  const warmupRuns = options.warmupRuns ?? 1;
  const timeoutMs = options.runTimeoutMs ?? 120_000;
  const ready: BenchTarget[] = [];
  const skipped = new Map<string, string>();
  for (const target of targets) {
    try {
      await target.prepare(options.signal ?? new AbortController().signal);
      ready.push(target);
    } catch (error) {
      const note = BenchTargetUnavailableError.isInstance(error)
        ? error.note
        : `could not start: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
      skipped.set(target.name, note);
    }
  }
  const records: TtfbRunRecord[] = [];
  const jitWarmUp = options.jitWarmUp ?? 0;
  const measuredTotal = ready.length * options.promptTokens.length * (options.runs + warmupRuns);
  // Only the rows that run JavaScript here are warmed (ttfb-warm-up.ts).
  const warmed = jitWarmUp > 0 ? ready.filter((target) => target.jitCompiled === true) : [];
  const warmUpTotal = warmed.length * jitWarmUp;
  const total = warmUpTotal + measuredTotal;
  let done = 0;
  let salt = randomSalt();
  const order = options.order ?? "shuffled";
  // A fixed order has no seed to record.
  const orderSeed = order === "fixed" ? null : (options.orderSeed ?? Math.floor(Math.random() * 2 ** 32));
  const nextOrder = runOrders(ready.length, order, orderSeed ?? 0);
  let promptTokensMeasured = options.countTokens !== undefined;
  const promptTokenRanges: Array<{ promptTokens: number; min: number; max: number }> = [];
  let warmUp: WarmUpRecord | null = null;
  const connectionNotes: Record<string, string> = {};
  try {
    // Every measured prompt is sized before anything runs. Sizing tokenizes each prompt several times with
    // one row's own model (node-llama-cpp's, or tessera's without it): done just before a run, it left that
    // row's tokenizer tables in the CPU's caches and every other row's cold, which made the row's tokenize
    // stage up to 2.6× faster than the same code in `tessera serve`. Each prompt's sizing is synchronous
    // native work, so the loop yields to the event loop after each one: signals, timers (the HTTP client's
    // idle-connection limit among them) and the progress bar go on while thousands are sized.
    // By the length's place in the list, not its value: a length listed twice gets new prompts twice.
    const sized: SizedPrompt[][] = [];
    const perLength = (warmupRuns + options.runs) * ready.length;
    const sizingTotal = perLength * options.promptTokens.length;
    for (const promptTokens of options.promptTokens) {
      const prompts: SizedPrompt[] = [];
      for (let count = 0; count < perLength; count++) {
        options.signal?.throwIfAborted();
        prompts.push(await buildUniquePrompt(promptTokens, salt++, options.countTokens));
        const sizedSoFar = sized.length * perLength + prompts.length;
        options.onProgress?.({
          done,
          total,
          label: `sizing prompts ${sizedSoFar}/${sizingTotal} (not measured)`,
        });
        await nextTurn();
      }
      sized.push(prompts);
      promptTokensMeasured &&= prompts.every((prompt) => prompt.measured);
      // The measured runs' prompts: the warm-up runs' come first.
      const counts = prompts.slice(warmupRuns * ready.length).map((prompt) => prompt.tokens);
      if (promptTokensMeasured && counts.length > 0)
        promptTokenRanges.push({ promptTokens, min: Math.min(...counts), max: Math.max(...counts) });
    }
    if (warmed.length > 0) {
      const shortest = Math.min(...options.promptTokens);
      const maxTokens = Math.min(options.jitWarmUpMaxTokens ?? 4, options.maxTokens);
      warmUp = await warmUpTargets(warmed, {
        generations: jitWarmUp,
        generate: async (target) => {
          const prompt = await buildUniquePrompt(shortest, salt++, options.countTokens);
          const run = await measureOnce(target, prompt.text, maxTokens, timeoutMs, options.signal);
          return run.ok ? null : (run.error ?? "no message").split("\n")[0]!;
        },
        maxTokens,
        ...(options.jitWarmUpMaxMs !== undefined && { maxMs: options.jitWarmUpMaxMs }),
        ...(options.signal !== undefined && { signal: options.signal }),
        onProgress: (warmed) => {
          done = warmed;
          options.onProgress?.({ done, total, label: "warm-up (not measured)" });
        },
      });
      // A time limit or a stopped row leaves rounds unrun: the progress goes on from the warm-up's total.
      done = warmUpTotal;
    }
    for (const [place, promptTokens] of options.promptTokens.entries()) {
      const prompts = sized[place]!;
      let next = 0;
      for (let run = -warmupRuns; run < options.runs; run++) {
        const places = nextOrder();
        for (const [position, index] of places.entries()) {
          const target = ready[index]!;
          options.signal?.throwIfAborted();
          const prompt = prompts[next++]!;
          const measured = await measureOnce(
            target,
            prompt.text,
            options.maxTokens,
            timeoutMs,
            options.signal,
          );
          if (run >= 0) records.push({ target: target.name, promptTokens, run, position, ...measured });
          done++;
          options.onProgress?.({ done, total, label: `${target.name} · ${promptTokens} tokens` });
        }
      }
    }
  } finally {
    for (const target of ready) {
      const note = target.connectionNote?.() ?? null;
      if (note !== null) connectionNotes[target.name] = note;
    }
    for (const target of targets) await target.close().catch(() => {});
  }
  const rows: TtfbRow[] = [];
  for (const promptTokens of options.promptTokens) {
    for (const target of targets) {
      const note = skipped.get(target.name);
      if (note !== undefined) {
        rows.push(emptyRow(target, promptTokens, note));
        continue;
      }
      const mine = records.filter(
        (record) => record.target === target.name && record.promptTokens === promptTokens,
      );
      const succeeded = mine.filter((record) => record.ok);
      const values = (pick: (record: TtfbRunRecord) => number | null | undefined) =>
        succeeded.map(pick).filter((value): value is number => typeof value === "number");
      rows.push({
        ...emptyRow(target, promptTokens, null),
        runs: mine.length,
        errors: mine.length - succeeded.length,
        errorRate: mine.length === 0 ? 0 : (mine.length - succeeded.length) / mine.length,
        firstByteMs: summarize(values((record) => record.firstByteMs)),
        firstContentMs: summarize(values((record) => record.firstContentMs)),
        interTokenMs: summarize(values((record) => record.interTokenMs)),
        tokensPerSecond: summarize(values((record) => record.tokensPerSecond)),
        stages: medianStages(succeeded),
        unaccountedMs: summarize(values((record) => record.unaccountedMs)).median ?? null,
      });
    }
  }
  return {
    benchmark: "ttfb",
    createdAt: new Date().toISOString(),
    machine: machineInfo(),
    settings: {
      promptTokens: options.promptTokens,
      runs: options.runs,
      maxTokens: options.maxTokens,
      warmupRuns,
      jitWarmUp: warmUp,
      connectionNotes,
      newConnections: options.newConnections === true,
      promptTokensMeasured,
      ...(promptTokenRanges.length > 0 && { promptTokenRanges }),
      order,
      orderSeed,
    },
    rows,
    comparisons: compareFirstTokens(records, options.promptTokens, options.runs, options.comparisons ?? []),
    runs: records,
  };
}
