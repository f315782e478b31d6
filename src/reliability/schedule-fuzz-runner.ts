// The schedule fuzzer's parent: runs the cases in batches, each batch in a child process
// (schedule-child.ts) that says when each case starts and ends. A child that dies mid-case (a
// signal, an abnormal exit) is a crash of that case; a child that reports a missed due event, or
// stops answering, is a hang. The rest of the batch goes on in a fresh child, and each crash or hang
// is replayed alone afterwards to say whether that case's schedule brings it back.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ReliabilityHarnessError } from "./errors/reliability-harness-error.js";
import { planScheduleCase, type ScheduleKind } from "./schedule-plan.js";
import type { ScheduleBatchRequest, ScheduleCaseOutcome, ScheduleChildLine } from "./schedule-protocol.js";

export interface ScheduleFuzzOptions {
  /** Cases to run: firstCase, firstCase + 1, … */
  readonly cases: number;
  readonly firstCase?: number;
  readonly runSeed?: number;
  /** Cases per child process. Default 40. */
  readonly batchSize?: number;
  /** Crashes and hangs replayed alone, at most (default 10), each up to 3 times. */
  readonly replays?: number;
  /** A case whose child writes nothing for this long hangs with its JS thread blocked. Default 30 s. */
  readonly silenceLimitMs?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface ScheduleFailure {
  readonly index: number;
  readonly kind: ScheduleKind | null;
  readonly outcome: Exclude<ScheduleCaseOutcome, "ok">;
  readonly detail: string;
  /** Replayed alone: how many of the tries failed the same way ("not replayed" beyond the limit). */
  readonly replay: { readonly tries: number; readonly recurred: number } | "not replayed";
}

export interface ScheduleFuzzFigures {
  readonly runSeed: number;
  readonly firstCase: number;
  readonly cases: number;
  readonly byKind: Readonly<Record<string, number>>;
  readonly ok: number;
  readonly hangs: number;
  readonly crashes: number;
  /** Cases after which threads were left behind, and how many threads in all. */
  readonly leaks: number;
  readonly leakedThreads: number;
  readonly unexpectedErrors: number;
  readonly hangCases: readonly number[];
  readonly crashCases: readonly number[];
  readonly leakCases: readonly number[];
  readonly unexpectedErrorCases: readonly number[];
  /** The first 50 failures, in case order, with their replays. */
  readonly failures: readonly ScheduleFailure[];
  /** Awaited events the watchdog timed (tokens, stream ends, createContext, worker exits). */
  readonly dueEvents: number;
  readonly childrenStarted: number;
  /** Largest growth of RSS (after a full GC) from a child's warm-up to its last case. */
  readonly rssGrowthMaximumBytes: number;
  readonly rssGrowthMaximumPercent: number;
  readonly threadsBaseline: number;
  readonly durationMs: number;
}

interface CaseRecord {
  readonly index: number;
  readonly kind: ScheduleKind | null;
  readonly outcome: ScheduleCaseOutcome;
  readonly detail: string;
  readonly leakedThreads: number;
  readonly dueEvents: number;
}

interface BatchResult {
  readonly records: CaseRecord[];
  /** Cases of the request not run (the child died first). */
  readonly remaining: number[];
  readonly threadsBaseline: number | null;
  readonly rssStartBytes: number | null;
  readonly rssEndBytes: number | null;
}

function childScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, "schedule-child.js");
  return existsSync(sibling) ? sibling : join(here, "..", "..", "dist", "reliability", "schedule-child.js");
}

function runBatch(
  script: string,
  request: ScheduleBatchRequest,
  silenceLimitMs: number,
  onCase: (record: CaseRecord) => void,
): Promise<BatchResult> {
  return new Promise((resolve, reject) => {
    // --expose-gc: raw-pull cases drop generation handles and run the collector while a pull waits.
    const child = spawn(process.execPath, ["--expose-gc", script, "batch", JSON.stringify(request)], {
      stdio: ["ignore", "pipe", "pipe"],
      // The child and its own children inherit the environment, TESSERA_NATIVE_ADDON included.
      env: { ...process.env, GGML_NO_BACKTRACE: "1" },
    });
    const records: CaseRecord[] = [];
    let running: number | undefined;
    let ready = false;
    let silenceHang = false;
    let stderr = "";
    let end: Extract<ScheduleChildLine, { type: "end" }> | undefined;
    let threadsBaseline: number | null = null;
    const record = (entry: CaseRecord) => {
      // A case the child never finished has its kind from its plan.
      const kind = entry.kind ?? planScheduleCase(request.runSeed, entry.index).kind;
      records.push({ ...entry, kind });
      onCase({ ...entry, kind });
    };
    // Ready takes a model load; a case gets the limit from its start line on.
    let silence = setTimeout(onSilence, silenceLimitMs * 2);
    function onSilence(): void {
      if (running !== undefined) {
        silenceHang = true;
        record({
          index: running,
          kind: null,
          outcome: "hang",
          detail: `the child wrote nothing for ${silenceLimitMs / 1000} s (its JS thread is blocked)`,
          leakedThreads: 0,
          dueEvents: 0,
        });
        running = undefined;
      }
      child.kill("SIGKILL");
    }
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    createInterface({ input: child.stdout }).on("line", (text) => {
      let line: ScheduleChildLine;
      try {
        line = JSON.parse(text) as ScheduleChildLine;
      } catch {
        return; // not ours (a library writing to stdout)
      }
      clearTimeout(silence);
      silence = setTimeout(onSilence, silenceLimitMs);
      if (line.type === "ready") {
        ready = true;
        threadsBaseline = line.threads;
      } else if (line.type === "start") {
        running = line.index;
      } else if (line.type === "done") {
        running = undefined;
        record({
          index: line.index,
          kind: line.kind ?? null,
          outcome: line.outcome,
          detail: line.detail ?? "",
          leakedThreads: line.leakedThreads ?? 0,
          dueEvents: line.dueEvents ?? 0,
        });
      } else if (line.type === "end") {
        end = line;
      }
    });
    child.on("error", reject);
    child.on("close", (exitCode, signal) => {
      clearTimeout(silence);
      const tail = stderr.trim().split("\n").slice(-3).join(" | ");
      if (!ready && records.length === 0) {
        reject(
          new ReliabilityHarnessError(
            `a schedule-fuzz child exited before it was ready (code ${exitCode}, signal ${signal}): ${tail}`,
            "Check that `npm run build` ran and that the native addon loads.",
          ),
        );
        return;
      }
      if (running !== undefined) {
        record({
          index: running,
          kind: null,
          outcome: "crash",
          detail: `the child died with code ${exitCode}, signal ${signal}: ${tail}`,
          leakedThreads: 0,
          dueEvents: 0,
        });
      } else if (end !== undefined && !silenceHang && (exitCode !== 0 || signal !== null)) {
        // Every case ended, then the process died on its way out: the last case left something behind.
        const last = records.at(-1);
        if (last !== undefined) {
          record({
            index: last.index,
            kind: last.kind,
            outcome: "crash",
            detail: `the child crashed at exit (code ${exitCode}, signal ${signal}): ${tail}`,
            leakedThreads: 0,
            dueEvents: 0,
          });
        }
      }
      const seen = new Set(records.map((entry) => entry.index));
      resolve({
        records,
        remaining: request.indices.filter((index) => !seen.has(index)),
        threadsBaseline,
        rssStartBytes: end?.rssStartBytes ?? null,
        rssEndBytes: end?.rssEndBytes ?? null,
      });
    });
  });
}

const replayTries = 3;
const startAttempts = 5;

/**
 * A child that dies before it is ready is retried a few times: a start fails for a moment while
 * `npm run build` rewrites dist/ under a long run. One that never starts is a harness failure.
 */
async function runBatchRetrying(
  script: string,
  request: ScheduleBatchRequest,
  silenceLimitMs: number,
  onCase: (record: CaseRecord) => void,
): Promise<BatchResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runBatch(script, request, silenceLimitMs, onCase);
    } catch (error) {
      if (attempt >= startAttempts || !ReliabilityHarnessError.isInstance(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

export async function runScheduleFuzz(options: ScheduleFuzzOptions): Promise<ScheduleFuzzFigures> {
  const started = performance.now();
  const runSeed = options.runSeed ?? 1;
  const firstCase = options.firstCase ?? 0;
  const batchSize = options.batchSize ?? 40;
  const silenceLimitMs = options.silenceLimitMs ?? 30_000;
  const script = childScript();
  if (!existsSync(script)) {
    throw new ReliabilityHarnessError(`${script} does not exist`, "Run `npm run build` first.");
  }
  const byIndex = new Map<number, CaseRecord>();
  let childrenStarted = 0;
  let rssGrowthMaximumBytes = 0;
  let rssGrowthMaximumPercent = 0;
  let threadsBaseline = 0;
  let pending = Array.from({ length: options.cases }, (_, offset) => firstCase + offset);
  while (pending.length > 0) {
    const request = { runSeed, indices: pending.slice(0, batchSize) };
    childrenStarted++;
    const batch = await runBatchRetrying(script, request, silenceLimitMs, (entry) => {
      // A case reported twice (a hang line, then the crash of the killed child) keeps its first outcome.
      if (!byIndex.has(entry.index)) byIndex.set(entry.index, entry);
      options.onProgress?.(byIndex.size, options.cases);
    });
    threadsBaseline = Math.max(threadsBaseline, batch.threadsBaseline ?? 0);
    if (batch.rssStartBytes !== null && batch.rssEndBytes !== null) {
      const growth = batch.rssEndBytes - batch.rssStartBytes;
      rssGrowthMaximumBytes = Math.max(rssGrowthMaximumBytes, growth);
      rssGrowthMaximumPercent = Math.max(rssGrowthMaximumPercent, (growth / batch.rssStartBytes) * 100);
    }
    pending = [...batch.remaining, ...pending.slice(batchSize)];
  }

  const records = [...byIndex.values()].sort((a, b) => a.index - b.index);
  const casesWith = (outcome: ScheduleCaseOutcome) =>
    records.filter((entry) => entry.outcome === outcome).map((entry) => entry.index);
  const failures: ScheduleFailure[] = [];
  let replaysLeft = options.replays ?? 10;
  for (const entry of records) {
    if (entry.outcome === "ok" || failures.length >= 50) continue;
    let replay: ScheduleFailure["replay"] = "not replayed";
    if ((entry.outcome === "crash" || entry.outcome === "hang") && replaysLeft > 0) {
      replaysLeft--;
      let recurred = 0;
      for (let attempt = 0; attempt < replayTries; attempt++) {
        childrenStarted++;
        const again = await runBatchRetrying(
          script,
          { runSeed, indices: [entry.index] },
          silenceLimitMs,
          () => {},
        );
        if (again.records.some((rerun) => rerun.outcome === entry.outcome)) recurred++;
      }
      replay = { tries: replayTries, recurred };
    }
    failures.push({
      index: entry.index,
      kind: entry.kind,
      outcome: entry.outcome,
      detail: entry.detail,
      replay,
    });
  }
  const byKind: Record<string, number> = {};
  for (const entry of records) {
    const kind = entry.kind ?? "unknown";
    byKind[kind] = (byKind[kind] ?? 0) + 1;
  }
  return {
    runSeed,
    firstCase,
    cases: records.length,
    byKind,
    ok: casesWith("ok").length,
    hangs: casesWith("hang").length,
    crashes: casesWith("crash").length,
    leaks: casesWith("leak").length,
    leakedThreads: records.reduce((sum, entry) => sum + entry.leakedThreads, 0),
    unexpectedErrors: casesWith("unexpected-error").length,
    hangCases: casesWith("hang"),
    crashCases: casesWith("crash"),
    leakCases: casesWith("leak"),
    unexpectedErrorCases: casesWith("unexpected-error"),
    failures,
    dueEvents: records.reduce((sum, entry) => sum + entry.dueEvents, 0),
    childrenStarted,
    rssGrowthMaximumBytes,
    rssGrowthMaximumPercent,
    threadsBaseline,
    durationMs: performance.now() - started,
  };
}
