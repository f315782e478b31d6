// `tessera bench … --quick` spawned as a user would run it: the JSON has every expected row and figure,
// and the markdown and SVG files are written next to it.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findPeerBinary } from "../../src/bench/peer-binaries.js";
import { linesOf, runCli, withoutNotices } from "./support/run-cli.js";

describe("tessera bench ttfb --quick", () => {
  it("measures every local row (or says why it is skipped) and writes JSON, markdown and SVG", async () => {
    const out = mkdtempSync(join(tmpdir(), "tessera-bench-"));
    const result = await runCli(["bench", "ttfb", "--quick", "--json", "--out", out], { timeoutMs: 180_000 });
    expect(withoutNotices(result.stderr)).toBe("");
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.benchmark).toBe("ttfb");
    expect(json.settings).toMatchObject({
      promptTokens: [16, 64],
      runs: 2,
      maxTokens: 8,
      promptTokensMeasured: true,
    });
    const names = [...new Set(json.rows.map((row: { target: string }) => row.target))];
    expect(names).toEqual([
      "tessera (in-process)",
      "node-llama-cpp (in-process)",
      "tessera serve (HTTP)",
      "llama-server (HTTP)",
    ]);
    expect(json.rows).toHaveLength(8);
    for (const row of json.rows) {
      if (row.target === "llama-server (HTTP)" && findPeerBinary("llama-server") === null) {
        expect(row.skipped).toMatch(/npm run bench:peers/);
        continue;
      }
      expect(row.skipped).toBeNull();
      expect(row.runs).toBe(2);
      expect(row.errorRate).toBe(0);
      for (const figure of ["firstByteMs", "firstContentMs", "interTokenMs", "tokensPerSecond"]) {
        // Over HTTP, a run whose tokens all arrive in one read has no per-token times to measure
        // ("n/a", never a made-up rate); in process every token has its own arrival time.
        const perToken = figure === "interTokenMs" || figure === "tokensPerSecond";
        if (perToken && row.target.endsWith("(HTTP)")) {
          expect(row[figure].count, `${row.target} ${figure}`).toBeLessThanOrEqual(2);
          if (row[figure].count === 0) continue;
        } else {
          expect(row[figure].count, `${row.target} ${figure}`).toBe(2);
        }
        expect(row[figure].median).toBeGreaterThan(0);
        expect(row[figure].p90).toBeGreaterThanOrEqual(row[figure].median);
      }
    }
    expect(readFileSync(join(out, "ttfb.md"), "utf8")).toContain(
      "| tessera serve (HTTP) | http | 64 | 2 | 0% |",
    );
    expect(readFileSync(join(out, "ttfb.svg"), "utf8")).toMatch(
      /^<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/,
    );
    expect(JSON.parse(readFileSync(join(out, "ttfb.json"), "utf8")).rows).toHaveLength(8);
  });

  it("rejects a bad remote spec in one line, before any work", async () => {
    const out = mkdtempSync(join(tmpdir(), "tessera-bench-"));
    const result = await runCli(["bench", "ttfb", "--quick", "--out", out, "--remote", "ftp://x,model"]);
    expect(result.code).toBe(1);
    expect(linesOf(withoutNotices(result.stderr))).toHaveLength(1);
    expect(withoutNotices(result.stderr)).toMatch(
      /^tessera: Invalid remote "ftp:\/\/x,model": only http\(s\) URLs/,
    );
    expect(existsSync(join(out, "ttfb.json"))).toBe(false);
  });
});

describe("tessera bench throughput --quick", () => {
  it("has tessera at three logits modes, node-llama-cpp and llama-bench (or its note)", async () => {
    const out = mkdtempSync(join(tmpdir(), "tessera-bench-"));
    const result = await runCli(["bench", "throughput", "--quick", "--json", "--out", out], {
      timeoutMs: 180_000,
    });
    expect(withoutNotices(result.stderr)).toBe("");
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.settings).toMatchObject({
      threads: 1,
      promptTokens: 64,
      generatedTokens: 16,
      repetitions: 2,
    });
    expect(json.rows.map((row: { target: string; logits: string }) => `${row.target}/${row.logits}`)).toEqual(
      ["tessera/off", "tessera/top-20", "tessera/full", "node-llama-cpp/off", "llama-bench/off"],
    );
    for (const row of json.rows) {
      if (row.target === "llama-bench" && findPeerBinary("llama-bench") === null) {
        expect(row.skipped).toMatch(/npm run bench:peers/);
        continue;
      }
      expect(row.skipped).toBeNull();
      expect(row.promptTokensPerSecond.count).toBe(2);
      expect(row.generatedTokensPerSecond.count).toBe(2);
      expect(row.promptTokensPerSecond.median).toBeGreaterThan(0);
      expect(row.generatedTokensPerSecond.median).toBeGreaterThan(0);
    }
    expect(readFileSync(join(out, "throughput.md"), "utf8")).toContain("| tessera | full |");
  });
});

describe("tessera bench strategies --quick", () => {
  it("reports every strategy and the batching comparison", async () => {
    const out = mkdtempSync(join(tmpdir(), "tessera-bench-"));
    const result = await runCli(["bench", "strategies", "--quick", "--json", "--out", out], {
      timeoutMs: 180_000,
    });
    expect(withoutNotices(result.stderr)).toBe("");
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.rows.map((row: { strategy: string }) => row.strategy)).toEqual([
      "single sample",
      "rejection ×4",
      "repair template ×4",
      "multi-turn ×4",
      "best-of-2 (logprob)",
      "majority vote 2",
    ]);
    for (const row of json.rows) {
      expect(row.attempts).toBe(2);
      expect(row.errors).toBe(0);
      expect(row.successRate).toBeGreaterThanOrEqual(0);
      expect(row.successRate).toBeLessThanOrEqual(1);
      expect(row.samples.median).toBeGreaterThanOrEqual(1);
      expect(row.wallMs.count).toBe(2);
    }
    expect(json.rows[4].samples.median).toBe(2);
    expect(json.batching.map((row: { mode: string }) => row.mode)).toEqual([
      "one sample",
      "best-of-2 batched (parallel sequences)",
      "best-of-2 sequential",
    ]);
    expect(json.batching[0].timesOneSample).toBe(1);
  });

  it("refuses a task file without tasks, in one line", async () => {
    const out = mkdtempSync(join(tmpdir(), "tessera-bench-"));
    const taskFile = join(out, "tasks.mjs");
    writeFileSync(taskFile, "export const tasks = [{ prompt: 'x' }];\n");
    const result = await runCli(["bench", "strategies", "--quick", "--tasks", taskFile, "--out", out]);
    expect(result.code).toBe(1);
    expect(linesOf(withoutNotices(result.stderr))).toHaveLength(1);
    expect(withoutNotices(result.stderr)).toMatch(
      /tasks\[0\] needs a string prompt, a string requirement and a verify\(text\) function/,
    );
  });
});
