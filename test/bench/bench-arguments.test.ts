// The benchmark scripts answer a bad command line with one line naming the problem and exit 1, never a
// stack trace from a child process or the native loader: a --model file that is not GGUF, a bad count, an
// unknown flag (benchmarks/lib/bench-arguments.mjs).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/support/package-folders.js";

const folder = mkdtempSync(join(tmpdir(), "tessera-bench-arguments-"));
const notGguf = join(folder, "notes.gguf");
writeFileSync(notGguf, "hello, not a model\n");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function run(script: string, args: string[]) {
  const result = spawnSync(process.execPath, [join(packageRoot(), "benchmarks", script), ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr.trim(), stdout: result.stdout.trim() };
}

describe("benchmark scripts' argument errors", () => {
  for (const [script, name] of [
    ["capture-cost.mjs", "capture-cost"],
    ["decode-alone.mjs", "decode-alone"],
    ["huge-pages.mjs", "huge-pages"],
  ] as const) {
    it(`${script}: a --model file that is not GGUF is one line and exit 1`, () => {
      const { status, stderr } = run(script, ["--model", notGguf]);
      expect(status).toBe(1);
      expect(stderr.split("\n")).toHaveLength(1);
      expect(stderr).toContain(`${name}: --model ${notGguf}: `);
      expect(stderr).toContain('magic "GGUF"');
    });
  }

  it("capture-cost.mjs: bad --modes, --rounds and unknown flags are one line each", () => {
    for (const [args, message] of [
      [["--modes", "full"], "--modes must be off followed by"],
      [["--modes", "off,nope"], "--modes must be off followed by"],
      [["--rounds", "0"], "--rounds must be an integer of at least 1"],
      [["--tokens", "x"], "--tokens must be an integer of at least 2"],
      [["--bogus"], "Unknown option '--bogus'"],
    ] as const) {
      const { status, stderr } = run("capture-cost.mjs", [...args]);
      expect(status).toBe(1);
      expect(stderr.split("\n")).toHaveLength(1);
      expect(stderr).toContain(`capture-cost: ${message}`);
    }
  });
});
