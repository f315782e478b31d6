// The process a batch of schedule-fuzz cases runs in (`node schedule-child.js batch <request>`): it
// loads the tiny model once, then runs the cases one after another, writing a line when each starts
// and ends (schedule-protocol.ts). After each case every thread it started must be gone again.
// `node schedule-child.js exit <case>` is the process a process-exit case starts and watches.
import { writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { loadLlamaModel } from "../backends/llamacpp/llama-model.js";
import { loadNativeAddon } from "../backends/llamacpp/native-addon.js";
import { resolveDefaultModel } from "../gguf/default-model.js";
import { residentBytes, settleMemory, threadCount } from "./process-probe.js";
import {
  type CaseTools,
  describeError,
  isExpectedError,
  type ScheduleResources,
} from "./schedule-case-tools.js";
import { runLoadAndCreateCase } from "./schedule-load-and-create-case.js";
import { planScheduleCase, type ScheduleCase } from "./schedule-plan.js";
import { exitMidStream, runProcessExitCase } from "./schedule-process-exit-case.js";
import type { ScheduleBatchRequest, ScheduleChildLine } from "./schedule-protocol.js";
import { runRawPullCase } from "./schedule-raw-pull-case.js";
import { runStreamsCase } from "./schedule-streams-case.js";
import { reportHangAndDie, ScheduleWatchdog } from "./schedule-watchdog.js";
import { runWorkerCase } from "./schedule-worker-case.js";
import { caseSeed } from "./seeded-random.js";

/** How long the threads of a finished case may take to go away before they count as leaked. */
const threadSettleMs = 2000;

const promptText =
  "The harbour master wrote down every ship that came in, its name, its cargo and the weather. ";

// Synchronous, so a line written just before a crash is not lost in a buffer.
function emit(line: ScheduleChildLine): void {
  writeSync(1, `${JSON.stringify(line)}\n`);
}

function runCase(tools: CaseTools, plan: ScheduleCase, seed: number): Promise<void> {
  switch (plan.kind) {
    case "streams":
      return runStreamsCase(tools, plan);
    case "raw-pull":
      return runRawPullCase(tools, plan, seed);
    case "load-and-create":
      return runLoadAndCreateCase(tools, plan);
    case "worker-terminate":
      return runWorkerCase(tools, plan, seed);
    case "process-exit":
      return runProcessExitCase(tools, plan, seed);
  }
}

/** Extra threads still alive after the settle time (decode threads, workers not joined). */
async function leakedThreads(baseline: number): Promise<number> {
  const deadline = performance.now() + threadSettleMs;
  while (threadCount() > baseline && performance.now() < deadline) await sleep(5);
  return Math.max(0, threadCount() - baseline);
}

async function runBatch(request: ScheduleBatchRequest): Promise<void> {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const modelPath = await resolveDefaultModel();
  const model = await loadLlamaModel(modelPath);
  const rawModel = await loadNativeAddon().loadModel(modelPath, { gpuLayers: 0, useMmap: true }).promise;
  const resources: ScheduleResources = {
    modelPath,
    model,
    rawModel,
    promptPool: model.tokenize(promptText.repeat(30)).subarray(0, 400),
    childScript: fileURLToPath(import.meta.url),
    workerScript: `${here}schedule-worker.js`,
  };
  // Warm-up: the first context, generation and dispose start the pools that stay (libuv's threads).
  const warmContext = await model.createContext({ contextSize: 256, batchSize: 64, threads: 1 });
  await warmContext.generate(resources.promptPool.subarray(0, 8), { maxTokens: 4 }).collect();
  warmContext.dispose();
  await settleMemory();
  let threadsBaseline = await (async () => {
    await sleep(50);
    return threadCount();
  })();
  const rssStartBytes = residentBytes();
  emit({ type: "ready", threads: threadsBaseline });

  // A rejection nobody handled belongs to the case that is running.
  let strays: string[] = [];
  process.on("unhandledRejection", (reason) => strays.push(`unhandled rejection: ${describeError(reason)}`));

  for (const index of request.indices) {
    emit({ type: "start", index });
    const plan = planScheduleCase(request.runSeed, index);
    const unexpected: string[] = [];
    const crashes: string[] = [];
    strays = unexpected;
    const watchdog = new ScheduleWatchdog((event) => reportHangAndDie(index, event));
    const tools: CaseTools = {
      resources,
      watchdog,
      unexpected: (where, error) => unexpected.push(`${where}: ${describeError(error)}`),
      crashed: (detail) => crashes.push(detail),
    };
    const started = performance.now();
    try {
      await runCase(tools, plan, caseSeed(request.runSeed, index));
    } catch (error) {
      if (!isExpectedError(error)) unexpected.push(`the case: ${describeError(error)}`);
    }
    const milliseconds = performance.now() - started;
    const leaked = await leakedThreads(threadsBaseline);
    // Count a leak once, not again in every later case.
    if (leaked > 0) threadsBaseline += leaked;
    const outcome =
      crashes.length > 0 ? "crash" : leaked > 0 ? "leak" : unexpected.length > 0 ? "unexpected-error" : "ok";
    const detail = [...crashes, ...(leaked > 0 ? [`${leaked} threads left`] : []), ...unexpected].join("; ");
    emit({
      type: "done",
      index,
      kind: plan.kind,
      outcome,
      ...(detail !== "" && { detail: detail.slice(0, 600) }),
      leakedThreads: leaked,
      rssBytes: residentBytes(),
      dueEvents: watchdog.dueEvents,
      milliseconds,
    });
  }
  await settleMemory();
  emit({ type: "end", threadsBaseline, rssStartBytes, rssEndBytes: residentBytes() });
  model.dispose();
  rawModel.dispose();
}

async function main(): Promise<void> {
  const [mode, argument = "{}"] = process.argv.slice(2);
  if (mode === "batch") return runBatch(JSON.parse(argument) as ScheduleBatchRequest);
  if (mode === "exit") {
    const { modelPath, plan, seed } = JSON.parse(argument);
    return exitMidStream(modelPath, plan, seed);
  }
  throw new TypeError(`unknown mode "${mode}": batch or exit`);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `schedule-child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 70;
});
