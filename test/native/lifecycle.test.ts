import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";
import { packageRoot } from "../../src/support/package-folders.js";

const run = promisify(execFile);
const fixture = new URL("./fixtures/exit-while-decoding.mjs", import.meta.url).pathname;

async function leave(how: string): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(
      process.execPath,
      [fixture, await resolveDefaultModel(), how, packageRoot()],
      {
        timeout: 60_000,
      },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; signal?: string; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: `${failed.signal ?? ""} ${failed.stderr ?? ""}` };
  }
}

// In child processes: a crash at teardown must fail the test, not the runner.
describe("leaving while the decode thread runs", () => {
  it("exits cleanly with process.exit in the middle of two generations", async () => {
    expect(await leave("exit")).toEqual({ code: 0, stdout: "" });
  });

  it("exits cleanly when the script ends with generations still decoding", async () => {
    expect((await leave("return")).code).toBe(0);
  });

  it("ends generations with abort when their model is disposed, settling a waiting pull", async () => {
    const { code, stdout } = await leave("dispose-model");
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ done: true, reason: "abort", code: "ERR_CONTEXT_DISPOSED" });
  });
});
