// Measurements of this process that the soak and stall runners compare before and after: resident
// memory after a full garbage collection, the threads in /proc/self/task (native decode threads
// included), and CPU time of all threads (a spinning native thread shows up there even when idle JS).
import { readdirSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collectGarbage: (() => void) | undefined;

/** Runs a full GC (exposed at run time, so no --expose-gc flag is needed) and settles for a moment. */
export async function settleMemory(): Promise<void> {
  if (collectGarbage === undefined) {
    setFlagsFromString("--expose-gc");
    collectGarbage = runInNewContext("gc") as () => void;
  }
  for (let round = 0; round < 3; round++) {
    collectGarbage();
    await sleep(20);
  }
}

export function residentBytes(): number {
  return process.memoryUsage.rss();
}

/** Threads of this process (Linux); -1 elsewhere. */
export function threadCount(): number {
  try {
    return readdirSync("/proc/self/task").length;
  } catch {
    return -1;
  }
}

/** User + system CPU time of every thread of the process, in milliseconds. */
export function cpuMilliseconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU milliseconds the process burns per second of wall time while this awaits (idle JS). */
export async function idleCpuPerSecond(milliseconds = 1000): Promise<number> {
  const cpuBefore = cpuMilliseconds();
  const wallBefore = performance.now();
  await sleep(milliseconds);
  return ((cpuMilliseconds() - cpuBefore) * 1000) / (performance.now() - wallBefore);
}
