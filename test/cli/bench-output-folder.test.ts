// Where `tessera bench` writes by default: run from a clone, it must not overwrite the committed
// benchmarks/results/; those change only with an explicit --out. Spawned as a user runs it, in a
// throwaway working directory laid out like a clone.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";

function runIn(cwd: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [resolve("dist/cli/main.js"), ...args], {
      cwd,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("error", fail);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stderr });
    });
  });
}

describe("tessera bench output folder", () => {
  it("writes to ./tessera-bench/ by default and leaves benchmarks/results/ alone", async () => {
    const model = await resolveDefaultModel();
    const clone = mkdtempSync(join(tmpdir(), "tessera-clone-"));
    const committed = join(clone, "benchmarks", "results");
    mkdirSync(committed, { recursive: true });
    writeFileSync(join(committed, "ttfb.json"), "committed\n");
    const args = ["bench", "ttfb", "--model", model, "--rows", "tessera", "--prompt-tokens", "16"];
    const small = ["--runs", "1", "--max-tokens", "2", "--threads", "1"];
    const noWarmUp = ["--warmup", "0", "--jit-warmup", "0"];

    const byDefault = await runIn(clone, [...args, ...small, ...noWarmUp]);
    expect(byDefault.stderr).not.toMatch(/Error/);
    expect(byDefault.code).toBe(0);
    expect(readFileSync(join(committed, "ttfb.json"), "utf8")).toBe("committed\n");
    expect(existsSync(join(committed, "ttfb.md"))).toBe(false);
    expect(JSON.parse(readFileSync(join(clone, "tessera-bench", "ttfb.json"), "utf8")).benchmark).toBe(
      "ttfb",
    );

    // On purpose: the committed results are replaced.
    const onPurpose = await runIn(clone, [...args, ...small, ...noWarmUp, "--out", "benchmarks/results"]);
    expect(onPurpose.code).toBe(0);
    expect(JSON.parse(readFileSync(join(committed, "ttfb.json"), "utf8")).benchmark).toBe("ttfb");
  }, 240_000);
});
