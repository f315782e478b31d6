// Defect 4 of the native hardening: Worker.terminate() during a generation in that worker, or during a
// model load with a progress callback, aborted the whole process ("terminate called after throwing an
// instance of 'Napi::Error'"). The fixture keeps the worker's JavaScript busy so that the addon's calls
// queue up and are drained during the termination: before the fix every round aborted.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { packageRoot } from "../../src/support/package-folders.js";
import { hooksAddonPath } from "./hooks-addon.js";

const fixture = new URL("./fixtures/terminate-busy-worker.mjs", import.meta.url).pathname;

async function terminateRounds(
  mode: "generate" | "progress" | "failed-load" | "throwing-call",
): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [fixture, hooksAddonPath, await resolveDefaultModel(), packageRoot(), mode, "3"],
    { timeout: 60_000 },
  );
  return stdout.trim();
}

describe("terminating a Worker that uses the addon", () => {
  it("leaves the process alive when the worker is generating", async () => {
    expect(await terminateRounds("generate")).toBe("survived");
  });

  it("leaves the process alive when the worker is loading a model with a progress callback", async () => {
    expect(await terminateRounds("progress")).toBe("survived");
  });

  // Found by the schedule fuzzer under the sanitizer run (case 178): a method that throws while the
  // Worker is terminated could not throw into JavaScript, and node-addon-api then threw a C++ exception
  // out of its wrapper (abort in every round before NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS).
  it("leaves the process alive when a native method throws during the termination", async () => {
    expect(await terminateRounds("throwing-call")).toBe("survived");
  });

  // Not a regression test of its own (it survived before too): a failed load completes while the
  // environment is torn down, the path whose error object node-addon-api would build outside our guards.
  it("leaves the process alive when a failed model load completes during the termination", async () => {
    expect(await terminateRounds("failed-load")).toBe("survived");
  });
});
