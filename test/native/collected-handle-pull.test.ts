// Found in review of the native hardening: a pending pull() lived on its generation handle, and the
// engine held only the generation's state, so a caller that awaited the pull but dropped the handle
// lost the promise when the garbage collector took the handle (10 of 10 runs). A waiting pull now keeps
// its handle alive until it settles. In a child process with --expose-gc.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { packageRoot } from "../../src/support/package-folders.js";

const fixture = new URL("./fixtures/collected-handle-pull.mjs", import.meta.url).pathname;

describe("a pull whose generation handle is dropped while it waits", () => {
  it("still settles with the generation's events", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--expose-gc", fixture, await resolveDefaultModel(), packageRoot()],
      { timeout: 60_000 },
    );
    const result = JSON.parse(stdout) as { settled: boolean; count?: number };
    expect(result.settled).toBe(true);
    expect(result.count).toBeGreaterThan(0);
  });
});
