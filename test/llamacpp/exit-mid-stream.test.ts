import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";

const run = promisify(execFile);
const fixture = new URL("./fixtures/exit-mid-stream.mjs", import.meta.url).pathname;
const distIndex = new URL("../../dist/index.js", import.meta.url).pathname;
const cli = new URL("../../dist/cli/main.js", import.meta.url).pathname;

async function exitStatus(
  file: string,
  args: string[],
): Promise<{ code: number | null; signal: string | null }> {
  try {
    await run(process.execPath, [file, ...args], { timeout: 60_000 });
    return { code: 0, signal: null };
  } catch (error) {
    const failed = error as { code?: number; signal?: string };
    return { code: failed.code ?? null, signal: failed.signal ?? null };
  }
}

// In child processes, so that a crash at exit fails the test instead of the runner. Needs `npm run build`.
describe("leaving the process in the middle of a stream", () => {
  beforeAll(() => {
    if (!existsSync(distIndex)) throw new Error(`${distIndex} is missing: run npm run build first`);
  });

  it("process.exit() during decoding exits with code 0, not a signal", async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await exitStatus(fixture, [distIndex, await resolveDefaultModel()])).toEqual({
        code: 0,
        signal: null,
      });
    }
  });

  it("`tessera run` piped into a reader that closes early exits with code 0", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn(
      process.execPath,
      [cli, "run", "-n", "400", "--ignore-eos", "--threads", "1", "Hello"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    // Close our end after the first bytes, like `| head -c 10`.
    child.stdout.once("data", () => child.stdout.destroy());
    const status = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    expect(status).toEqual({ code: 0, signal: null });
  });
});
