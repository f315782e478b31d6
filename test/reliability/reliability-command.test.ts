// `tessera reliability` end to end (compiled CLI, so `npm run build` first), on a small budget.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { ReliabilityFigures } from "../../src/reliability/reliability-report.js";

const run = promisify(execFile);

describe("tessera reliability", () => {
  it("runs every stage it is given a budget for and prints the figures as JSON", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "dist/cli/main.js",
        "reliability",
        "--fuzz",
        "30",
        "--cancellations",
        "0",
        "--stall-seconds",
        "1",
        "--clients",
        "10",
        "--schedules",
        "12",
        "--options",
        "3",
        "--json",
      ],
      { timeout: 240_000 },
    );
    const figures = JSON.parse(stdout) as ReliabilityFigures;
    expect(figures.cancellation).toBeNull();
    expect(figures.fuzz?.cases).toBe(30);
    expect(figures.fuzz?.native?.untyped).toBe(0);
    expect(figures.stall?.tokensDecodedWhileStalled).toBe(0);
    expect(figures.storm?.clients).toBe(10);
    expect(figures.storm?.untypedFailures).toBe(0);
    expect(figures.schedules?.cases).toBe(12);
    expect(figures.schedules?.hangs).toBe(0);
    expect(figures.options?.cases).toBe(3);
    expect(figures.options?.crashes).toBe(0);
  });

  it("replays one schedule case alone: the other stages' default budgets do not run", async () => {
    const { stdout } = await run(
      process.execPath,
      ["dist/cli/main.js", "reliability", "--schedule-case", "5", "--json"],
      { timeout: 120_000 },
    );
    const figures = JSON.parse(stdout) as ReliabilityFigures;
    expect(figures.schedules?.cases).toBe(1);
    expect(figures.schedules?.firstCase).toBe(5);
    expect(figures.fuzz).toBeNull();
    expect(figures.cancellation).toBeNull();
    expect(figures.options ?? null).toBeNull();
  });

  it("refuses a count that is not a non-negative integer", async () => {
    const failure = await run(process.execPath, ["dist/cli/main.js", "reliability", "--fuzz", "-3"]).catch(
      (error: { code?: number; stderr?: string }) => error,
    );
    expect((failure as { code?: number }).code).toBe(1);
    expect((failure as { stderr?: string }).stderr).toContain("non-negative integer");
    const empty = await run(process.execPath, ["dist/cli/main.js", "reliability", "--schedules", ""]).catch(
      (error: { code?: number; stderr?: string }) => error,
    );
    expect((empty as { code?: number }).code).toBe(1);
    expect((empty as { stderr?: string }).stderr).toContain("non-negative integer");
  });
});
