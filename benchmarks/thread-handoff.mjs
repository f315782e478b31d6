// Builds and runs benchmarks/thread-handoff/thread-handoff.cpp (one g++ call into a temporary folder):
// the cost of waking a sleeping thread on another CPU, which every served first token pays twice
// (JavaScript → decode thread at the start, decode thread → JavaScript with the token). On this 2-vCPU VM
// a wake-up takes tens of microseconds where a spinning thread sees a flag in one; docs/benchmarks.md
// ("Where the rest of the first token goes") uses these figures.
//   node benchmarks/thread-handoff.mjs
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";

if (process.platform !== "linux")
  throw new Error("thread-handoff pins threads with Linux calls: run it on Linux");
if (availableParallelism() < 2)
  throw new Error("thread-handoff needs 2 CPUs: it wakes a thread on another one");
const folder = mkdtempSync(join(tmpdir(), "thread-handoff-"));
const binary = join(folder, "thread-handoff");
try {
  try {
    execFileSync(
      "g++",
      ["-O2", "-pthread", join(import.meta.dirname, "thread-handoff", "thread-handoff.cpp"), "-o", binary],
      {
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
  } catch (error) {
    throw new Error(
      `could not build thread-handoff.cpp with g++ (install g++, or build-essential): ${error.message}`,
    );
  }
  process.stdout.write(execFileSync(binary, { encoding: "utf8" }));
} finally {
  rmSync(folder, { recursive: true, force: true });
}
