// Ctrl-C while `tessera run` writes a preset on first use: the partial file is removed and one line
// says so; a later run removes `.tmp-` files that processes which are gone left behind.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { linesOf, runCli } from "./support/run-cli.js";

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** An empty models folder that shares the installation's vocabulary cache (extracting it takes a while). */
function modelsFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "tessera-models-"));
  folders.push(dir);
  mkdirSync(resolve("models/.cache"), { recursive: true });
  symlinkSync(resolve("models/.cache"), join(dir, ".cache"));
  return dir;
}

const temporaries = (dir: string) => readdirSync(dir).filter((name) => name.startsWith(".tmp-"));

describe("generating a preset on first use", () => {
  it("removes the partial file on Ctrl-C and says so in one line", async () => {
    const dir = modelsFolder();
    const child = spawn(
      process.execPath,
      ["dist/cli/main.js", "run", "--threads", "1", "-m", "llama-3.2-1b:q4_0", "-n", "1", "x"],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TESSERA_MODELS_DIR: dir, NO_COLOR: "1" } },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
    // Interrupt once the temporary file holds some data: the write is under way.
    const until = Date.now() + 60_000;
    while (!temporaries(dir).some((name) => statSync(join(dir, name)).size > 1024 * 1024)) {
      if (Date.now() > until) throw new Error(`no temporary model file appeared; stderr:\n${stderr}`);
      await new Promise((done) => setTimeout(done, 50));
    }
    child.kill("SIGINT");
    const code = await exited;
    expect(temporaries(dir)).toEqual([]);
    expect(readdirSync(dir).filter((name) => name.endsWith(".gguf"))).toEqual([]);
    expect(code).toBe(130);
    const lines = linesOf(stderr).filter((line) => !line.startsWith("tessera: generating "));
    expect(lines).toEqual([
      "tessera: Interrupted while writing llama-3.2-1b (Q4_0); the partial file was removed.",
    ]);
  }, 90_000);

  it("removes .tmp- files left by processes that are gone, and keeps those of live ones", async () => {
    const dir = modelsFolder();
    // A pid that surely belongs to no process any more: one of a child that has exited.
    const gone = spawn(process.execPath, ["-e", ""]);
    const deadPid = gone.pid!;
    await new Promise((done) => gone.on("close", done));
    const stale = `.tmp-${deadPid}-abc123-llama-3.2-1b-q4_0.gguf`;
    const live = `.tmp-${process.pid}-def456-tiny-f32.gguf`;
    writeFileSync(join(dir, stale), "partial");
    writeFileSync(join(dir, live), "partial");
    // A generated preset (not the committed default) is what sweeps the models folder.
    const result = await runCli(["run", "--model", "tiny", "--threads", "1", "-n", "1", "x"], {
      env: { TESSERA_MODELS_DIR: dir },
    });
    expect(result.code).toBe(0);
    expect(temporaries(dir)).toEqual([live]);
  });
});
