// `tessera models train` as a user runs it (dist/cli/main.js; `npm run build:ts` first): bad flags are
// refused in one line that names the flag, and interrupting it never leaves scratch files behind nor
// waits for llama.cpp's trainer to finish its slice.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linesOf, runCli } from "../cli/support/run-cli.js";
import { MICRO_LINE, writeMicroModel, writeMicroTrainingFolder } from "./micro-model.js";

const line = MICRO_LINE;
let folder: string;
let start: string;
let corpus: string;

beforeAll(async () => {
  ({ folder, start, corpus } = await writeMicroTrainingFolder("tessera-train-command-"));
}, 60_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function refused(args: string[]): Promise<string> {
  const result = await runCli(["models", "train", ...args, "--threads", "1"], {
    env: { TESSERA_MODELS_DIR: join(folder, "models") },
  });
  expect(result.code, result.stderr).toBe(1);
  const lines = linesOf(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  return lines[0]!;
}

describe("tessera models train refuses, naming the flag", () => {
  it("an --lr the warm-up scales below the smallest float32", async () => {
    const message = await refused([
      start,
      "--corpus",
      corpus,
      "--out",
      join(folder, "a.gguf"),
      "--lr",
      "1e-46",
    ]);
    expect(message).toMatch(/^tessera: --lr 1e-46 is too small/);
  });

  it("a --sequence-length beyond the model's context length", async () => {
    const message = await refused([
      start,
      "--corpus",
      corpus,
      "--out",
      join(folder, "b.gguf"),
      "--sequence-length",
      "768",
    ]);
    expect(message).toContain("--sequence-length 768");
    expect(message).toContain("512");
  });

  it("a start that is not F32, naming the start argument", async () => {
    const f16 = await writeMicroModel(folder, 1, "F16");
    const message = await refused([f16, "--corpus", corpus, "--out", join(folder, "c.gguf")]);
    expect(message).toContain(`<start> ${f16}`);
    expect(message).toContain("F16");
  });

  it("--validation with a built-in task, which holds out its own problems", async () => {
    const message = await refused([
      start,
      "--corpus",
      "sorting",
      "--out",
      join(folder, "d.gguf"),
      "--validation",
      "0.1",
    ]);
    expect(message).toContain("--validation");
    expect(message).toContain("built-in tasks hold out their own problems");
  });

  it("a --validation that holds out no whole row", async () => {
    const short = join(folder, "short.txt");
    await writeFile(short, `${line}\n`.repeat(100));
    const message = await refused([start, "--corpus", short, "--out", join(folder, "e.gguf")]);
    expect(message).toMatch(/--validation 0\.05 holds out 5 lines/);
    expect(message).not.toContain("validationFraction");
    expect(message).not.toContain("sequenceLength");
  });
});

/** Spawns a training run; resolves once llama.cpp's trainer has started (the first validation line). */
async function startTraining(
  args: string[],
  scratch: string,
): Promise<{
  child: ReturnType<typeof spawn>;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}> {
  const child = spawn(
    process.execPath,
    ["dist/cli/main.js", "models", "train", start, "--threads", "1", ...args],
    // The scratch folder goes under os.tmpdir(): TMPDIR points it at a folder the test can watch.
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TMPDIR: scratch, NO_COLOR: "1" } },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on("close", (code, signal) => done({ code, signal })),
  );
  const until = Date.now() + 60_000;
  while (!stderr.includes("validation after 0 steps")) {
    if (Date.now() > until || child.exitCode !== null) throw new Error(`training did not start:\n${stderr}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  return { child, stderr: () => stderr, exited };
}

describe("interrupting tessera models train", () => {
  it("quits at once on a second Ctrl-C, inside a slice, and leaves no scratch folder", async () => {
    const out = join(folder, "twice");
    const scratch = join(folder, "twice-tmp");
    await mkdir(scratch, { recursive: true });
    const long = join(folder, "long.txt");
    // About 3,000 rows in one slice (--shard-size): minutes of training that the first Ctrl-C cannot cut.
    await writeFile(long, `${line}\n`.repeat(20_000));
    const run = await startTraining(
      ["--corpus", long, "--out", join(out, "model.gguf"), "--shard-size", "100000"],
      scratch,
    );
    run.child.kill("SIGINT");
    await new Promise((done) => setTimeout(done, 300));
    const second = Date.now();
    run.child.kill("SIGINT");
    const { signal } = await run.exited;
    // Killed by the signal itself (what a shell reports as 130), without waiting for the slice to end.
    expect(signal, run.stderr()).toBe("SIGINT");
    expect(Date.now() - second).toBeLessThan(20_000);
    expect(await readdir(out)).toEqual([]);
    expect(await readdir(scratch)).toEqual([]);
  }, 120_000);

  it("stops at the next shard boundary on SIGTERM and writes the checkpoint", async () => {
    const out = join(folder, "term");
    const scratch = join(folder, "term-tmp");
    await mkdir(scratch, { recursive: true });
    const output = join(out, "model.gguf");
    const run = await startTraining(
      ["--corpus", corpus, "--out", output, "--shard-size", "2", "--epochs", "50"],
      scratch,
    );
    run.child.kill("SIGTERM");
    const { code } = await run.exited;
    expect(code, run.stderr()).toBe(0);
    expect(existsSync(output)).toBe(true);
    expect(await readdir(out)).toEqual(["model.gguf"]);
    expect(await readdir(scratch)).toEqual([]);
  }, 120_000);
});
