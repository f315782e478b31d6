// A worker-terminate case: a Worker thread loads the addon and generates (schedule-worker.ts); this
// thread terminates it during the load (progress callbacks in flight), while its context is created,
// or mid-decode. The process must survive, and terminate() must settle within the watchdog's limit.
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { type CaseTools, describeError } from "./schedule-case-tools.js";
import type { WorkerTerminateCase } from "./schedule-plan.js";
import type { ScheduleWorkerData, ScheduleWorkerMessage } from "./schedule-worker.js";

// Starting a worker that loads the addon and a model takes a few hundred ms, more on a busy machine.
const workerStartLimitMs = 30_000;

export async function runWorkerCase(
  tools: CaseTools,
  plan: WorkerTerminateCase,
  seed: number,
): Promise<void> {
  const workerData: ScheduleWorkerData = { modelPath: tools.resources.modelPath, plan, seed };
  const worker = new Worker(tools.resources.workerScript, { workerData });
  let exited = false;
  worker.on("error", (error) => tools.unexpected("the worker", describeError(error)));
  const moment = new Promise<void>((resolve) => {
    let progress = 0;
    let tokens = 0;
    if (plan.at === "load" && plan.after === 0) resolve();
    worker.on("message", (message: ScheduleWorkerMessage) => {
      if (message.type === "progress" && plan.at === "load" && ++progress >= plan.after) resolve();
      // A load with fewer progress calls than planned is terminated right after it.
      if (message.type === "loaded" && plan.at !== "decode") resolve();
      if (message.type === "token" && plan.at === "decode" && ++tokens >= plan.after) resolve();
    });
    worker.on("exit", () => {
      exited = true;
      resolve();
    });
  });
  await tools.watchdog.due(`the worker reaching ${plan.at}`, moment, workerStartLimitMs);
  if (plan.delayMs > 0) await sleep(plan.delayMs);
  if (exited && plan.at !== "load") tools.unexpected("the worker", `it exited before it reached ${plan.at}`);
  await tools.watchdog.due("the exit of a terminated worker", worker.terminate());
}
