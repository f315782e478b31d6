// Runs the model fuzz: builds the seeds, then for each case writes the mutated file, reads it with our
// TypeScript reader (in process) and loads it natively (in the harness's child process). Counts
// outcomes; crashes, hangs and untyped exceptions are failures, kept on disk when asked.
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GgufError } from "../gguf/errors/gguf-error.js";
import { buildFuzzSeeds, type FuzzSeed } from "./fuzz-seed-models.js";
import { fuzzCase, type MutationFamily } from "./mutation-corpus.js";
import { type NativeCheckResult, NativeLoadHarness } from "./native-load-harness.js";
import { validateBeforeNativeLoad } from "./pre-load-validation.js";
import { ReaderCheckPool } from "./reader-check-pool.js";

export interface ModelFuzzOptions {
  readonly cases: number;
  /** Same seed, same corpus. Default 1. */
  readonly runSeed?: number;
  /** Also load each file natively in a child process. Default true. */
  readonly native?: boolean;
  /** Per-file native time limit before it counts as a hang. Default 20 s. */
  readonly timeoutMs?: number;
  /** Folder to copy failing files into (none kept when missing). */
  readonly keepFailuresIn?: string;
  /** Include the tiny preset and the BPE vocab file as seeds. Default true. */
  readonly includeLargeSeeds?: boolean;
  /** Seeds built beforehand (tests share one set). */
  readonly seeds?: readonly FuzzSeed[];
  readonly childScript?: string;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface FuzzFailure {
  readonly index: number;
  readonly seedName: string;
  readonly family: MutationFamily;
  readonly description: string;
  readonly where: "reader" | "native";
  readonly outcome: string;
  readonly detail: string;
  readonly keptAt?: string;
  /** `validateBeforeNativeLoad` rejects the file: the loader will not crash once it runs that check. */
  readonly preventedByValidation: boolean;
}

export interface ModelFuzzFigures {
  readonly cases: number;
  readonly runSeed: number;
  readonly byFamily: Readonly<Record<string, number>>;
  readonly bySeed: Readonly<Record<string, number>>;
  /** Our reader (in a worker thread of this process): hang = no answer in time, crash = out of memory. */
  readonly reader: { accepted: number; rejected: number; untyped: number; hangs: number; crashes: number };
  readonly native: {
    generated: number;
    rejected: number;
    untyped: number;
    crashes: number;
    hangs: number;
    /** Crashes and hangs whose file `validateBeforeNativeLoad` rejects (so the fixed loader never runs it). */
    preventedByValidation: number;
    childrenStarted: number;
  } | null;
  /** Files our reader accepted as a consistent model that llama.cpp then refused (and the reverse). */
  readonly readerAcceptedNativeRejected: number;
  readonly readerRejectedNativeGenerated: number;
  readonly failures: readonly FuzzFailure[];
  readonly durationMs: number;
}

/** tmpfs when there is one: thousands of small writes stay in memory. */
function scratchRoot(): string {
  return existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function nativeDetail(result: NativeCheckResult): string {
  if ("stage" in result) return `${result.errorName ?? ""} at ${result.stage}: ${result.message ?? ""}`;
  const tail = result.stderrTail.trim().split("\n").slice(-3).join(" | ");
  return `${result.outcome} (signal ${result.signal}, exit ${result.exitCode}) after ${Math.round(result.milliseconds)} ms: ${tail}`;
}

export async function runModelFuzz(options: ModelFuzzOptions): Promise<ModelFuzzFigures> {
  const started = performance.now();
  const runSeed = options.runSeed ?? 1;
  const seeds =
    options.seeds ??
    (await buildFuzzSeeds(
      options.includeLargeSeeds === undefined ? {} : { includeLargeSeeds: options.includeLargeSeeds },
    ));
  const folder = await mkdtemp(join(scratchRoot(), "tessera-fuzz-"));
  const harness =
    options.native === false
      ? undefined
      : new NativeLoadHarness({
          ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
          ...(options.childScript !== undefined && { childScript: options.childScript }),
        });
  const byFamily: Record<string, number> = {};
  const bySeed: Record<string, number> = {};
  const reader = { accepted: 0, rejected: 0, untyped: 0, hangs: 0, crashes: 0 };
  const readerPool = new ReaderCheckPool({
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  const native = {
    generated: 0,
    rejected: 0,
    untyped: 0,
    crashes: 0,
    hangs: 0,
    preventedByValidation: 0,
    childrenStarted: 0,
  };
  const failures: FuzzFailure[] = [];
  let readerAcceptedNativeRejected = 0;
  let readerRejectedNativeGenerated = 0;
  if (options.keepFailuresIn !== undefined) await mkdir(options.keepFailuresIn, { recursive: true });

  const keep = async (path: string, index: number, seedName: string): Promise<string | undefined> => {
    if (options.keepFailuresIn === undefined) return undefined;
    const target = join(options.keepFailuresIn, `case-${runSeed}-${index}-${seedName}.gguf`);
    await copyFile(path, target);
    return target;
  };

  try {
    for (let index = 0; index < options.cases; index++) {
      const fuzz = fuzzCase(seeds, runSeed, index);
      increment(byFamily, fuzz.family);
      increment(bySeed, fuzz.seedName);
      const path = join(folder, `case-${index}.gguf`);
      await writeFile(path, fuzz.bytes);
      const base = { index, seedName: fuzz.seedName, family: fuzz.family, description: fuzz.description };

      const readerResult = await readerPool.check(path);
      if (readerResult.outcome === "hang") reader.hangs++;
      else if (readerResult.outcome === "crash") reader.crashes++;
      else reader[readerResult.outcome]++;
      if (readerResult.outcome !== "accepted" && readerResult.outcome !== "rejected") {
        failures.push({
          ...base,
          where: "reader",
          outcome: readerResult.outcome,
          detail: `${"errorName" in readerResult ? readerResult.errorName : readerResult.outcome} at ${readerResult.stage}: ${readerResult.message}`,
          preventedByValidation: false,
          ...(await keep(path, index, fuzz.seedName).then((keptAt) => (keptAt ? { keptAt } : {}))),
        });
      }

      if (harness !== undefined) {
        const result = await harness.check(path);
        if (result.outcome === "crash") native.crashes++;
        else if (result.outcome === "hang") native.hangs++;
        else native[result.outcome]++;
        if (result.outcome !== "generated" && result.outcome !== "rejected") {
          const keptAt = await keep(path, index, fuzz.seedName);
          const preventedByValidation = await validateBeforeNativeLoad(path).then(
            () => false,
            (error: unknown) => GgufError.isInstance(error),
          );
          if (preventedByValidation) native.preventedByValidation++;
          failures.push({
            ...base,
            where: "native",
            outcome: result.outcome,
            detail: nativeDetail(result),
            ...(keptAt && { keptAt }),
            preventedByValidation,
          });
        }
        if (readerResult.outcome === "accepted" && result.outcome === "rejected")
          readerAcceptedNativeRejected++;
        if (readerResult.outcome === "rejected" && result.outcome === "generated")
          readerRejectedNativeGenerated++;
      }
      await rm(path, { force: true });
      options.onProgress?.(index + 1, options.cases);
    }
  } finally {
    await harness?.close();
    await readerPool.close();
    native.childrenStarted = harness?.childrenStarted ?? 0;
    await rm(folder, { recursive: true, force: true });
  }
  return {
    cases: options.cases,
    runSeed,
    byFamily,
    bySeed,
    reader,
    native: harness === undefined ? null : native,
    readerAcceptedNativeRejected,
    readerRejectedNativeGenerated,
    failures,
    durationMs: performance.now() - started,
  };
}
