// 100 concurrent clients against a real `tessera serve` on the tiny model, 40% of them leaving at
// random moments: nothing crashes or leaks, every client that stays gets an answer or a JSON error.
import { describe, expect, it } from "vitest";
import { runDisconnectStorm } from "../../src/reliability/serve-disconnect-storm.js";

describe("100 concurrent clients with random disconnects", () => {
  it("are answered or refused with a typed error, and leave no slot or generation behind", async () => {
    const figures = await runDisconnectStorm({ clients: 100, runSeed: 5 });
    const report = JSON.stringify(figures, null, 1);
    expect(figures.untypedFailures, report).toBe(0);
    expect(figures.completed + figures.disconnected + figures.typedErrors).toBe(100);
    expect(figures.completed, report).toBeGreaterThan(0);
    expect(figures.disconnected, report).toBeGreaterThan(0);
    expect(figures.activeEnd).toBe(0);
    expect(figures.queuedEnd).toBe(0);
    expect(figures.runningGenerationsEnd).toBe(0);
    expect(figures.healthyAfterwards).toBe(true);
  });
});
