// `tessera bench ttfb` and `throughput` stopped by a signal that reaches its process alone (`kill <pid>`, a supervisor;
// Ctrl-C signals the whole process group instead): the servers its rows started are its children and used
// to keep running under init. Now the command kills them and ends by the same signal (a shell loop stops
// on it). A real run: the HTTP floor row's server is a real child process (Linux /proc tells its parent,
// state and command line).
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveModel } from "../../src/gguf/default-model.js";

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

/** The child whose command line holds `marker`: not, say, the git process that writes a missing preset. */
function childRunning(pid: number, marker: string): number | undefined {
  return childrenOf(pid).find((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8").includes(marker) && alive(child);
    } catch {
      return false;
    }
  });
}
const floorServerOf = (pid: number) => childRunning(pid, "http-floor-server.js");

/** Running, sleeping or stopped: anything but gone or a zombie (killed, waiting to be reaped). */
const alive = (pid: number) => {
  const stat = statOf(pid);
  return stat !== null && stat.state !== "Z" && stat.state !== "X";
};

describe.runIf(existsSync("/proc/self/stat"))("tessera bench ttfb stopped by a signal", () => {
  // The preset the command resolves exists first, so the signal lands while the floor row runs.
  beforeAll(async () => {
    await resolveModel("tiny");
  }, 120_000);

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`ends by ${signal} and takes its servers with it`, async () => {
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
        await expect.poll(() => floorServerOf(bench.pid!), { timeout: 20_000 }).toBeDefined();
        const server = floorServerOf(bench.pid!)!;
        const exited = once(bench, "exit");
        bench.kill(signal);
        const [exitCode, exitSignal] = await exited;
        expect({ exitCode, exitSignal }).toEqual({ exitCode: null, exitSignal: signal });
        await expect.poll(() => alive(server), { timeout: 5_000 }).toBe(false);
      } finally {
        bench.kill("SIGKILL");
        rmSync(out, { recursive: true, force: true });
      }
    }, 40_000);
  }
});

describe.runIf(existsSync("/proc/self/stat"))("tessera bench throughput stopped by a signal", () => {
  beforeAll(async () => {
    await resolveModel("tiny");
  }, 120_000);

  it("takes its llama-bench child with it", async () => {
    // A stand-in for llama-bench that outlives any run (only the process's lifetime is under test here):
    // before, a SIGTERM to the bench left it running under init until it finished.
    const folder = mkdtempSync(join(tmpdir(), "tessera-bench-"));
    const standIn = join(folder, "llama-bench");
    writeFileSync(standIn, "#!/bin/sh\nexec sleep 913\n");
    chmodSync(standIn, 0o755);
    const bench = spawn(
      process.execPath,
      ["dist/cli/main.js", "bench", "throughput", "--quick", "--threads", "1", "--out", join(folder, "out")],
      { stdio: "ignore", env: { ...process.env, TESSERA_LLAMA_BENCH: standIn } },
    );
    let standInPid: number | undefined;
    try {
      await expect.poll(() => childRunning(bench.pid!, "sleep"), { timeout: 60_000 }).toBeDefined();
      const child = childRunning(bench.pid!, "sleep")!;
      standInPid = child;
      const exited = once(bench, "exit");
      bench.kill("SIGTERM");
      const [exitCode, exitSignal] = await exited;
      expect({ exitCode, exitSignal }).toEqual({ exitCode: null, exitSignal: "SIGTERM" });
      await expect.poll(() => alive(child), { timeout: 5_000 }).toBe(false);
    } finally {
      // Without the fix the stand-in outlives the bench: kill this bench's own one, found while the bench
      // is its parent, before a failed assertion leaves it behind.
      // The pid seen while the bench was its parent: once the bench is gone the stand-in belongs to init.
      if (standInPid !== undefined && alive(standInPid)) process.kill(standInPid, "SIGKILL");
      bench.kill("SIGKILL");
      rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);
});
