// `tessera bench ttfb` stopped by a signal that reaches its process alone (`kill <pid>`, a supervisor;
// Ctrl-C signals the whole process group instead): the servers its rows started are its children and used
// to keep running under init. Now the command exits 130 / 143 and its exit hook kills them. A real run:
// the HTTP floor row's server is a real child process (Linux /proc tells its parent and state).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** Parent pid and state of a process from /proc/<pid>/stat, or null once it is gone. */
function statOf(pid: number): { parent: number; state: string } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: the fields after its last ")" are fixed.
    const [state, parent] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { parent: Number(parent), state: state! };
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((candidate) => statOf(candidate)?.parent === pid);
}

/** Running, sleeping or stopped: anything but gone or a zombie (killed, waiting to be reaped). */
const alive = (pid: number) => {
  const stat = statOf(pid);
  return stat !== null && stat.state !== "Z" && stat.state !== "X";
};

describe.runIf(existsSync("/proc/self/stat"))("tessera bench ttfb stopped by a signal", () => {
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    it(`exits ${code} on ${signal} and takes its servers with it`, async () => {
      const out = mkdtempSync(join(tmpdir(), "tessera-bench-"));
      const bench = spawn(
        process.execPath,
        [
          ...["dist/cli/main.js", "bench", "ttfb", "--rows", "http-floor", "--prompt-tokens", "16"],
          ...["--runs", "1000000", "--warmup", "0", "--out", out],
        ],
        { stdio: "ignore" },
      );
      try {
        await expect.poll(() => childrenOf(bench.pid!).filter(alive).length, { timeout: 20_000 }).toBe(1);
        const [server] = childrenOf(bench.pid!).filter(alive);
        const exited = once(bench, "exit");
        bench.kill(signal);
        const [exitCode] = await exited;
        expect(exitCode).toBe(code);
        await expect.poll(() => alive(server!), { timeout: 5_000 }).toBe(false);
      } finally {
        bench.kill("SIGKILL");
      }
    }, 40_000);
  }
});
