// `bench ttfb`'s JIT warm-up: short unmeasured generations on every row before the first prompt length.
// The first cases use plain objects that record their calls (the schedule's control flow, not a
// measurement); the last runs the CLI on the real HTTP floor server.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { BenchTarget, StreamRequest } from "../../src/bench/bench-target.js";
import { runTtfbBenchmark } from "../../src/bench/ttfb-benchmark.js";
import { ttfbMarkdown } from "../../src/bench/ttfb-report.js";
import { localRows, ttfbTargets } from "../../src/bench/ttfb-targets.js";
import { linesOf, runCli, withoutNotices } from "../cli/support/run-cli.js";

interface Call {
  name: string;
  request: StreamRequest;
}

function recordingTargets(
  names: string[],
  calls: Call[],
  failing: ReadonlySet<string> = new Set(),
  compiled: (name: string) => boolean = () => true,
) {
  return names.map(
    (name): BenchTarget => ({
      name,
      transport: "in-process",
      jitCompiled: compiled(name),
      async prepare() {},
      async close() {},
      async stream(request, observer) {
        calls.push({ name, request });
        if (failing.has(name)) throw new Error(`${name} refused the request.`);
        observer.firstByte();
        observer.content("x");
        return { completionTokens: 1 };
      },
    }),
  );
}

describe("bench ttfb JIT warm-up", () => {
  it("runs N short generations per row, round-robin, before any measured run, and records them", async () => {
    const calls: Call[] = [];
    const progress: number[] = [];
    let total = 0;
    const result = await runTtfbBenchmark(recordingTargets(["a", "b", "c"], calls), {
      promptTokens: [64, 16],
      runs: 2,
      maxTokens: 32,
      warmupRuns: 1,
      jitWarmUp: 5,
      order: "fixed",
      onProgress: ({ done, total: all }) => {
        progress.push(done);
        total = all;
      },
    });
    const warm = calls.slice(0, 15);
    // Each round starts one row later: no row is always warmed right after the same other row.
    expect(warm.map((call) => call.name).join("")).toBe("abcbcacababcbca");
    for (const call of warm) expect(call.request.maxTokens).toBe(4);
    // The shortest length's prompts (estimated from characters here: no tokenizer was given), each new.
    const warmPrompts = warm.map((call) => call.request.prompt);
    expect(new Set(warmPrompts).size).toBe(15);
    const firstMeasured = calls[15]!.request.prompt;
    for (const prompt of warmPrompts) expect(prompt.length).toBeLessThan(firstMeasured.length);
    // Then the measured schedule, untouched: 2 lengths × (1 warm-up + 2 runs) × 3 rows.
    expect(calls).toHaveLength(15 + 18);
    expect(result.runs).toHaveLength(12);
    expect(result.settings.jitWarmUp).toEqual({
      generations: 5,
      stoppedByLimitMs: null,
      rows: ["a", "b", "c"],
      maxTokens: 4,
      failed: {},
      stopped: {},
    });
    expect(total).toBe(15 + 18);
    expect(progress.at(-1)).toBe(total);
    expect([...progress].sort((x, y) => x - y)).toEqual(progress);
    expect(ttfbMarkdown(result)).toMatch(
      /5 JIT warm-up generations on each row that runs JavaScript here \(3 of them; 16-token prompts, 4 tokens each\) first, then 2 runs per row/,
    );
  });

  it("stops warming a row after 10 failures in a row, says so, and still measures it", async () => {
    const calls: Call[] = [];
    const progress: number[] = [];
    const result = await runTtfbBenchmark(recordingTargets(["ok", "down"], calls, new Set(["down"])), {
      promptTokens: [16],
      runs: 1,
      maxTokens: 2,
      warmupRuns: 0,
      jitWarmUp: 50,
      onProgress: ({ done }) => progress.push(done),
    });
    const warm = calls.filter((call) => call.request.maxTokens === 2).slice(0, -2);
    expect(warm.filter((call) => call.name === "ok")).toHaveLength(50);
    expect(warm.filter((call) => call.name === "down")).toHaveLength(10);
    expect(result.settings.jitWarmUp!.failed).toEqual({ down: 10 });
    expect(result.settings.jitWarmUp!.stopped.down).toBe(
      "10 warm-up generations failed in a row; the last: down refused the request.",
    );
    // The measured run still ran, and failed as the row does.
    expect(result.runs.find((run) => run.target === "down")).toMatchObject({ ok: false });
    expect(progress.at(-1)).toBe(100 + 2);
    expect([...progress].sort((x, y) => x - y)).toEqual(progress);
    expect(ttfbMarkdown(result)).toContain(
      "The JIT warm-up of down stopped early: 10 warm-up generations failed in a row; the last: down refused the request.",
    );
  });

  it("warms only the rows that run JavaScript here: never a C++ row or a remote provider", async () => {
    const calls: Call[] = [];
    const result = await runTtfbBenchmark(
      recordingTargets(["tessera", "llama-server", "remote"], calls, new Set(), (name) => name === "tessera"),
      { promptTokens: [16], runs: 1, maxTokens: 2, warmupRuns: 0, jitWarmUp: 25, order: "fixed" },
    );
    expect(calls.slice(0, 25).every((call) => call.name === "tessera")).toBe(true);
    expect(calls.slice(25).map((call) => call.name)).toEqual(["tessera", "llama-server", "remote"]);
    expect(result.settings.jitWarmUp!.rows).toEqual(["tessera"]);
  });

  it("bench ttfb's rows: the ones in V8 here are warmed; llama-server, the C++ runner and remotes are not", () => {
    const targets = ttfbTargets({
      modelPath: "unused.gguf",
      modelId: "tiny",
      threads: 1,
      contextSize: 512,
      rows: localRows,
      remotes: [{ name: "provider", baseUrl: "https://example.invalid/v1", model: "m" }],
    });
    const warmed = Object.fromEntries(targets.map((target) => [target.name, target.jitCompiled === true]));
    expect(warmed).toEqual({
      "tessera (in-process)": true,
      "node-llama-cpp (in-process)": true,
      "greedy runner (C++)": false,
      "tessera serve (HTTP)": true,
      "llama-server (HTTP)": false,
      "llama-server (HTTP, prebuilt libs)": false,
      "HTTP floor (no model)": true,
      "tessera (in-process, 2nd turn)": true,
      "tessera serve (HTTP, 2nd turn)": true,
      "tessera serve (HTTP, 4 at once)": true,
      "llama-server (HTTP, 4 at once)": false,
      "remote: provider": false,
    });
  });

  it("counts only the warmed rows in the progress, and records no warm-up when no row runs JavaScript", async () => {
    const calls: Call[] = [];
    const progress: Array<[number, number, string]> = [];
    await runTtfbBenchmark(
      recordingTargets(["js", "cpp"], calls, new Set(), (name) => name === "js"),
      {
        promptTokens: [16],
        runs: 2,
        maxTokens: 2,
        warmupRuns: 0,
        jitWarmUp: 5,
        onProgress: ({ done, total, label }) => progress.push([done, total, label]),
      },
    );
    // First the 4 measured prompts are sized (no step done yet), then 5 warm-up generations of one row,
    // then 2 runs of two rows: one step at a time.
    const sizing = progress.filter(([, , label]) => label.startsWith("sizing prompts"));
    expect(sizing.map(([done, , label]) => [done, label])).toEqual(
      [1, 2, 3, 4].map((count) => [0, `sizing prompts ${count}/4 (not measured)`]),
    );
    expect(progress.slice(0, 4)).toEqual(sizing);
    expect(progress.slice(4).map(([done]) => done)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const [, total] of progress) expect(total).toBe(9);

    const none = await runTtfbBenchmark(
      recordingTargets(["cpp"], [], new Set(), () => false),
      { promptTokens: [16], runs: 1, maxTokens: 2, warmupRuns: 0, jitWarmUp: 2000 },
    );
    expect(none.settings.jitWarmUp).toBeNull();
    expect(ttfbMarkdown(none)).not.toContain("JIT warm-up");
  });

  it("starts rounds only within its time limit, the same number for every row, and says so", async () => {
    const calls: Call[] = [];
    const slow = recordingTargets(["a", "b"], calls).map((target) => ({
      ...target,
      stream: async (request: StreamRequest, observer: Parameters<BenchTarget["stream"]>[1]) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return target.stream(request, observer);
      },
    }));
    const result = await runTtfbBenchmark(slow, {
      promptTokens: [16],
      runs: 1,
      maxTokens: 2,
      warmupRuns: 0,
      jitWarmUp: 1000,
      jitWarmUpMaxMs: 60,
    });
    const record = result.settings.jitWarmUp!;
    expect(record.stoppedByLimitMs).toBe(60);
    expect(record.generations).toBeGreaterThan(0);
    expect(record.generations).toBeLessThan(1000);
    const warm = calls.slice(0, -2);
    expect(warm.filter((call) => call.name === "a")).toHaveLength(record.generations);
    expect(warm.filter((call) => call.name === "b")).toHaveLength(record.generations);
    expect(ttfbMarkdown(result)).toContain(
      `${record.generations} JIT warm-up generations on each row that runs JavaScript here (2 of them; 16-token prompts, 2 tokens each; as many as started within 60 ms) first`,
    );
  });

  it("renders results of the first version, whose record named no rows (it warmed every row)", () => {
    const old = JSON.parse(
      readFileSync("benchmarks/results/llama-server-warmed-2026-12-02/4x-warmed/ttfb.json", "utf8"),
    );
    expect(ttfbMarkdown(old)).toContain(
      "2000 JIT warm-up generations on each row that runs JavaScript here (every row then; 16-token prompts",
    );
  });

  it("an abort during the warm-up ends the benchmark", async () => {
    const calls: Call[] = [];
    const controller = new AbortController();
    const targets = recordingTargets(["a"], calls);
    const stream = targets[0]!.stream.bind(targets[0]);
    targets[0]!.stream = async (request, observer) => {
      if (calls.length === 3) controller.abort(new Error("interrupted"));
      return stream(request, observer);
    };
    await expect(
      runTtfbBenchmark(targets, {
        promptTokens: [16],
        runs: 1,
        maxTokens: 2,
        jitWarmUp: 1000,
        signal: controller.signal,
      }),
    ).rejects.toThrow("interrupted");
    expect(calls.length).toBeLessThan(6);
  });

  describe("the CLI", () => {
    const outputs: string[] = [];
    afterAll(() => {
      for (const out of outputs) rmSync(out, { recursive: true, force: true });
    });

    it("--jit-warmup runs the warm-up on a real server row and the result says so", async () => {
      const out = mkdtempSync(join(tmpdir(), "tessera-jit-warm-up-"));
      outputs.push(out);
      const result = await runCli(
        [
          ...["bench", "ttfb", "--rows", "http-floor", "--prompt-tokens", "16,32", "--runs", "2"],
          ...["--warmup", "0", "--jit-warmup", "7", "--max-tokens", "2", "--out", out],
        ],
        { timeoutMs: 120_000 },
      );
      expect(withoutNotices(result.stderr)).not.toMatch(/rror/);
      expect(result.code).toBe(0);
      const json = JSON.parse(readFileSync(join(out, "ttfb.json"), "utf8"));
      expect(json.settings.jitWarmUp).toEqual({
        generations: 7,
        stoppedByLimitMs: null,
        rows: ["HTTP floor (no model)"],
        maxTokens: 2,
        failed: {},
        stopped: {},
      });
      expect(readFileSync(join(out, "ttfb.md"), "utf8")).toContain(
        "7 JIT warm-up generations on each row that runs JavaScript here (1 of them; 16-token prompts, 2 tokens each) first",
      );
    });

    it("refuses a negative --jit-warmup in one line naming the flag", async () => {
      const out = mkdtempSync(join(tmpdir(), "tessera-jit-warm-up-"));
      outputs.push(out);
      const result = await runCli(["bench", "ttfb", "--quick", "--jit-warmup", "-1", "--out", out]);
      expect(result.code).toBe(1);
      expect(linesOf(withoutNotices(result.stderr))).toHaveLength(1);
      expect(withoutNotices(result.stderr)).toMatch(/option '--jit-warmup <n>' argument '-1' is invalid/);
    });
  });
});
