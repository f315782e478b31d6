// benchmarks/ttfb-pool.mjs pools the paired comparisons of several `bench ttfb` results: the median over
// every pair of every run, not a median of the runs' medians. Checked on two small results written here,
// where the pooled figure differs from either run's own; and its command-line errors are one line.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/support/package-folders.js";

const folder = mkdtempSync(join(tmpdir(), "tessera-ttfb-pool-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A result whose row "a" takes `ratios[i]` × row "b"'s 10 ms in run i, at 16 tokens. */
function result(name: string, ratios: number[], model = "tiny-f32.gguf"): string {
  const runs = ratios.flatMap((ratio, run) => [
    { target: "a", promptTokens: 16, run, position: 0, ok: true, firstContentMs: 10 * ratio },
    { target: "b", promptTokens: 16, run, position: 1, ok: true, firstContentMs: 10 },
  ]);
  // A failed run of "a" pairs with nothing.
  runs.push({ target: "a", promptTokens: 16, run: ratios.length, position: 0, ok: false } as never);
  const path = join(folder, name);
  mkdirSync(path);
  writeFileSync(
    join(path, "ttfb.json"),
    JSON.stringify({
      benchmark: "ttfb",
      model,
      settings: {},
      runs,
      comparisons: [{ target: "a", reference: "b", promptTokens: 16 }],
    }),
  );
  return path;
}

function pool(args: string[]) {
  const run = spawnSync(process.execPath, [join(packageRoot(), "benchmarks", "ttfb-pool.mjs"), ...args], {
    encoding: "utf8",
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr.trim() };
}

describe("ttfb-pool.mjs", () => {
  it("takes the median over every pair of every run", () => {
    // The runs' own medians are 0.8 and 1.2, so a median of the runs' medians would say 1.0; the eight
    // pairs' median is 1.1 (p10 0.77 and p90 1.33, interpolated as the reports do).
    const first = result("first", [0.8, 0.9, 0.7]);
    const second = result("second", [1.1, 1.2, 1.3, 1.1, 1.4]);
    const { status, stdout } = pool([first, join(second, "ttfb.json")]);
    expect(status).toBe(0);
    const line = stdout.split("\n").find((text) => text.startsWith("| a | b | 16 |"));
    expect(line).toBe("| a | b | 16 | 8 | 1.100× | 0.77 – 1.33 | 1.00 |");
  });

  it("says in one line what is missing or wrong", () => {
    expect(pool([]).stderr).toBe(
      "ttfb-pool: give one or more bench ttfb result folders (or ttfb.json files)",
    );
    const missing = pool([join(folder, "none")]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("run bench ttfb with --out <folder> first");
    const other = join(folder, "other.json");
    writeFileSync(other, JSON.stringify({ benchmark: "throughput" }));
    expect(pool([other]).stderr).toBe(`ttfb-pool: ${other} is not a bench ttfb result`);
    expect(pool(["--help"]).stderr).toBe(
      "ttfb-pool: give one or more bench ttfb result folders (or ttfb.json files)",
    );
  });

  it("refuses a result given twice, runs of different setups, and results with nothing to pool", () => {
    const once = result("once", [1, 1]);
    const twice = pool([once, join(once, "ttfb.json")]);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toContain("is given twice; give each result once");
    const other = result("other-model", [1, 1], "tiny-text.gguf");
    expect(pool([once, other]).stderr).toContain(
      'has model "tiny-text.gguf" where ' +
        join(once, "ttfb.json") +
        ' has "tiny-f32.gguf": pool runs of one setup only',
    );
    const empty = join(folder, "empty.json");
    writeFileSync(empty, JSON.stringify({ benchmark: "ttfb", settings: {}, runs: [] }));
    expect(pool([empty]).stderr).toBe(
      "ttfb-pool: no run of these results pairs a row with its reference: nothing to pool",
    );
  });
});
