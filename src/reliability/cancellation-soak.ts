// The cancellation soak: many generations cancelled at random moments and in every way a caller can
// (see cancellation-kinds.ts), on one llama.cpp context and one `tessera serve`. After a warm-up the
// resident memory, the thread count and the idle CPU time are measured; at the end they must be back
// where they were, nothing may still be running, and the context must still generate the same text.
import { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { resolveDefaultModel } from "../gguf/default-model.js";
import { startTesseraServer } from "../server/create-server.js";
import {
  type CancellationKind,
  type CancellationTarget,
  cancellationKinds,
  cancelOnce,
} from "./cancellation-kinds.js";
import { idleCpuPerSecond, residentBytes, settleMemory, threadCount } from "./process-probe.js";
import { caseSeed, SeededRandom } from "./seeded-random.js";

export interface CancellationSoakOptions {
  readonly cancellations: number;
  /** Cancellations before the baseline is taken (allocators and caches reach their steady size). */
  readonly warmup?: number;
  readonly runSeed?: number;
  /** Include HTTP client disconnects against an in-process `tessera serve`. Default true. */
  readonly http?: boolean;
  readonly modelPath?: string;
  readonly onProgress?: (done: number, total: number) => void;
}

export interface CancellationSoakFigures {
  readonly cancellations: number;
  readonly byKind: Readonly<Record<string, number>>;
  readonly aborted: number;
  readonly finishedFirst: number;
  readonly typedErrors: number;
  readonly untypedErrors: number;
  readonly errorSamples: readonly string[];
  readonly rssAfterWarmupBytes: number;
  readonly rssEndBytes: number;
  readonly rssChangePercent: number;
  /** RSS after a full GC at every tenth of the run (the shape of any growth). */
  readonly rssCheckpointsBytes: readonly number[];
  readonly threadsAfterWarmup: number;
  readonly threadsEnd: number;
  /** CPU ms per second of wall time while nothing runs, after the soak (a spinning thread shows here). */
  readonly idleCpuMsPerSecond: number;
  readonly runningGenerationsEnd: number;
  readonly serverActiveEnd: number;
  /** Greedy output after the soak equals the output before it. */
  readonly stillGeneratesCorrectly: boolean;
  readonly durationMs: number;
}

const longText =
  "The lighthouse keeper climbed the spiral stairs every evening, counting the steps, watching the sea. ";
const referenceOptions = { temperature: 0, maxTokens: 16, ignoreEos: true } as const;

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

export async function runCancellationSoak(
  options: CancellationSoakOptions,
): Promise<CancellationSoakFigures> {
  const started = performance.now();
  const runSeed = options.runSeed ?? 1;
  // glibc grows its per-thread malloc arenas in steps for the first few hundred generations (with
  // MALLOC_ARENA_MAX=1 the steps vanish); the baseline is taken once they settled.
  const warmup = options.warmup ?? Math.min(500, Math.max(20, Math.floor(options.cancellations / 3)));
  const modelPath = options.modelPath ?? (await resolveDefaultModel());
  const model = await loadLlamaModel(modelPath);
  const context = await model.createContext({ contextSize: 1024, batchSize: 512, threads: 1 });
  const backend =
    options.http === false
      ? undefined
      : await LlamaCppBackend.create({ model: modelPath, threads: 1, sequences: 2, contextSize: 512 });
  // Its clients ask for "tiny"; the backend is named after the model file.
  const server =
    backend === undefined ? undefined : await startTesseraServer({ backend, port: 0, aliases: ["tiny"] });
  const kinds = cancellationKinds.filter((kind) => kind !== "http-disconnect" || server !== undefined);
  try {
    const target: CancellationTarget = {
      context,
      shortPrompt: model.tokenize("Once upon a time"),
      longPrompt: model.tokenize(longText.repeat(20)).subarray(0, 600),
      ...(server !== undefined && { serverUrl: server.url }),
    };
    const greedy = async () => (await context.generate(target.shortPrompt, referenceOptions).collect()).text;
    const reference = await greedy();

    const byKind: Record<string, number> = {};
    const counts = { aborted: 0, finishedFirst: 0, typedErrors: 0, untypedErrors: 0 };
    const errorSamples: string[] = [];
    const runOne = async (index: number, counted: boolean): Promise<void> => {
      const random = new SeededRandom(caseSeed(runSeed, index));
      const kind: CancellationKind = random.pick(kinds);
      const outcome = await cancelOnce(kind, target, random);
      // Every kind must leave nothing running behind it before the next starts.
      await waitUntil(() => context.runningGenerations === 0 && (server?.limiter.active ?? 0) === 0);
      if (!counted) return;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      if (!("error" in outcome)) {
        if (outcome.ended === "aborted") counts.aborted++;
        else counts.finishedFirst++;
      } else {
        if (outcome.ended === "typed-error") counts.typedErrors++;
        else counts.untypedErrors++;
        if (errorSamples.length < 10) errorSamples.push(`${kind}: ${outcome.error}`);
      }
    };

    for (let index = 0; index < warmup; index++) await runOne(-1 - index, false);
    await settleMemory();
    const rssAfterWarmupBytes = residentBytes();
    const threadsAfterWarmup = threadCount();
    const rssCheckpointsBytes: number[] = [];
    const checkpointEvery = Math.max(1, Math.floor(options.cancellations / 10));
    for (let index = 0; index < options.cancellations; index++) {
      await runOne(index, true);
      options.onProgress?.(index + 1, options.cancellations);
      if ((index + 1) % checkpointEvery === 0) {
        await settleMemory();
        rssCheckpointsBytes.push(residentBytes());
      }
    }
    await settleMemory();
    const rssEndBytes = residentBytes();
    const threadsEnd = threadCount();
    const idleCpuMsPerSecond = await idleCpuPerSecond();
    const stillGeneratesCorrectly = (await greedy()) === reference;
    return {
      cancellations: options.cancellations,
      byKind,
      ...counts,
      errorSamples,
      rssAfterWarmupBytes,
      rssEndBytes,
      rssChangePercent: ((rssEndBytes - rssAfterWarmupBytes) / rssAfterWarmupBytes) * 100,
      rssCheckpointsBytes,
      threadsAfterWarmup,
      threadsEnd,
      idleCpuMsPerSecond,
      runningGenerationsEnd: context.runningGenerations,
      serverActiveEnd: server?.limiter.active ?? 0,
      stillGeneratesCorrectly,
      durationMs: performance.now() - started,
    };
  } finally {
    await server?.close();
    await backend?.dispose();
    context.dispose();
    model.dispose();
  }
}
