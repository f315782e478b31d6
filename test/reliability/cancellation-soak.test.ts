// The reduced cancellation soak and stalled-consumer checks (the full run is `tessera reliability`):
// real generations on the tiny model and a real `tessera serve`, cancelled in every way a caller can.
import { describe, expect, it } from "vitest";
import { runCancellationSoak } from "../../src/reliability/cancellation-soak.js";
import { runStalledConsumer } from "../../src/reliability/stalled-consumer.js";

describe("100 generations cancelled at random moments", () => {
  it("end as aborted (or finished first), leak nothing and leave the context generating correctly", async () => {
    const figures = await runCancellationSoak({ cancellations: 100, warmup: 60, runSeed: 3 });
    const report = JSON.stringify(figures, null, 1);
    // Every kind was exercised, HTTP disconnects included.
    expect(Object.keys(figures.byKind).sort(), report).toEqual(
      ["before-start", "break", "decode", "http-disconnect", "prefill", "queue-full"].sort(),
    );
    expect(figures.untypedErrors, report).toBe(0);
    expect(figures.typedErrors, report).toBe(0);
    expect(figures.aborted + figures.finishedFirst).toBe(100);
    expect(figures.aborted, report).toBeGreaterThan(50);
    expect(Math.abs(figures.rssChangePercent), report).toBeLessThanOrEqual(5);
    expect(figures.threadsEnd, report).toBeLessThanOrEqual(figures.threadsAfterWarmup);
    expect(figures.runningGenerationsEnd).toBe(0);
    expect(figures.serverActiveEnd).toBe(0);
    // A native thread left spinning would burn hundreds of ms per second; idle is a few.
    expect(figures.idleCpuMsPerSecond, report).toBeLessThan(100);
    expect(figures.stillGeneratesCorrectly).toBe(true);
  });
});

describe("a stream nobody reads for 5 s", () => {
  it("parks the decode thread with a full queue: no tokens, no CPU, no memory growth; reading resumes it", async () => {
    const figures = await runStalledConsumer({ seconds: 5 });
    const report = JSON.stringify(figures, null, 1);
    expect(figures.tokensDecodedWhileStalled, report).toBe(0);
    expect(figures.cpuMsPerSecond, report).toBeLessThan(100);
    // Flat means no growth (the allocator may hand memory back after the model load: that is fine).
    expect(figures.rssChangePercent, report).toBeLessThanOrEqual(5);
    expect(figures.rssMaximumBytes / figures.rssStartBytes, report).toBeLessThanOrEqual(1.05);
    expect(figures.threadsEnd).toBe(figures.threadsStart);
    expect(figures.resumedToTheEnd).toBe(true);
  });
});
