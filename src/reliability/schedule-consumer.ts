// The pacing of a fuzzed reader between two tokens: at once, on the next turn of the event loop, a
// busy-wait on the JS thread (a slow consumer that never yields), or an occasional pause long enough
// for the native queue to fill. Each changes when takeBatch runs relative to the decode thread.
import { setImmediate as nextTurn, setTimeout as sleep } from "node:timers/promises";
import type { ConsumerPlan } from "./schedule-plan.js";
import type { SeededRandom } from "./seeded-random.js";

function busyWait(milliseconds: number): void {
  const until = performance.now() + milliseconds;
  while (performance.now() < until) {
    // spin: the point is to hold the JS thread
  }
}

/** Waits as the plan says after one token (or one batch) was read. */
export async function paceConsumer(plan: ConsumerPlan, random: SeededRandom): Promise<void> {
  switch (plan.kind) {
    case "immediate":
      return;
    case "set-immediate":
      await nextTurn();
      return;
    case "busy-wait":
      busyWait(plan.busyWaitMs);
      return;
    case "pause":
      if (random.chance(plan.pauseChance)) await sleep(plan.pauseMs);
      return;
  }
}
