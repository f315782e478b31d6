// The schedule fuzzer's fixed CI set (the full run is `tessera reliability --schedules 10000`): random
// queue capacities, consumers, stops, disposals, worker terminations and process exits, each case in a
// child process that must neither hang, crash, leak a thread nor throw an untyped error. Needs
// `npm run build` (the children run compiled JavaScript). With the pre-fix addon
// (TESSERA_NATIVE_ADDON=native/build/baseline-pre-fix/tessera.node) this set finds defects 4 and 2
// (crashes) and 1 (a hang).
import { describe, expect, it } from "vitest";
import { runScheduleFuzz } from "../../src/reliability/schedule-fuzz-runner.js";
import { planScheduleCase, type ScheduleCase } from "../../src/reliability/schedule-plan.js";

const ciCases = 250;

describe("the schedule fuzzer", () => {
  describe("plans a case from (seed, case number) alone", () => {
    const plans: ScheduleCase[] = Array.from({ length: 3000 }, (_, index) => planScheduleCase(1, index));

    it("so a case replays by its number", () => {
      expect(planScheduleCase(1, 1234)).toEqual(plans[1234]);
      expect(planScheduleCase(2, 1234)).not.toEqual(plans[1234]);
    });

    it("covering every kind, queue capacity 1–8, consumer and stop the issue names", () => {
      const kinds = new Set(plans.map((plan) => plan.kind));
      expect([...kinds].sort()).toEqual(
        ["load-and-create", "process-exit", "raw-pull", "streams", "worker-terminate"].sort(),
      );
      const streams = plans.flatMap((plan) => (plan.kind === "streams" ? plan.streams : []));
      const raw = plans.flatMap((plan) => (plan.kind === "raw-pull" ? plan.generations : []));
      const capacities = new Set([...streams, ...raw].map((stream) => stream.queueCapacity));
      expect([...capacities].sort()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const consumers = new Set(streams.map((stream) => stream.consumer.kind));
      expect(consumers.size).toBe(4);
      const busyWaits = streams.filter((stream) => stream.consumer.kind === "busy-wait");
      for (const stream of busyWaits) {
        expect(stream.consumer.busyWaitMs).toBeGreaterThanOrEqual(0.05);
        expect(stream.consumer.busyWaitMs).toBeLessThanOrEqual(2);
      }
      const stops = new Set(streams.map((stream) => `${stream.stop.kind}@${stream.stop.moment}`));
      for (const kind of ["cancel", "break", "signal", "dispose-context", "dispose-model"]) {
        for (const moment of ["prefill", "decode", "full-queue"])
          expect(stops).toContain(`${kind}@${moment}`);
      }
      const terminations = new Set(
        plans.flatMap((plan) => (plan.kind === "worker-terminate" ? [plan.at] : [])),
      );
      expect([...terminations].sort()).toEqual(["create-context", "decode", "load"]);
      expect(plans.some((plan) => plan.kind === "streams" && plan.contexts.length > 1)).toBe(true);
    });
  });

  it(`runs the fixed CI set (seed 1, cases 0–${ciCases - 1}) with no hang, crash, leaked thread or untyped error`, async () => {
    const figures = await runScheduleFuzz({ cases: ciCases, runSeed: 1, replays: 3 });
    expect(figures.failures).toEqual([]);
    expect(figures.cases).toBe(ciCases);
    expect(figures.hangs + figures.crashes + figures.leakedThreads + figures.unexpectedErrors).toBe(0);
  }, 170_000);
});
