// llama.cpp writes the trained model into a scratch folder under os.tmpdir(); a process killed outright
// (kill -9) cannot remove it, so the next run removes those whose process is gone, and only those.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trainModel } from "../../src/training/train-model.js";
import { writeMicroModel } from "./micro-model.js";

let folder: string;
let scratch: string;
const previousTmpdir = process.env.TMPDIR;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "tessera-train-sweep-"));
  scratch = join(folder, "tmp");
  await mkdir(scratch);
});

afterAll(async () => {
  if (previousTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmpdir;
  await rm(folder, { recursive: true, force: true });
});

describe("a training run", () => {
  it("removes scratch folders of processes that are gone, and keeps those of live ones", async () => {
    const start = await writeMicroModel(folder);
    const corpus = join(folder, "line.txt");
    await writeFile(corpus, "the quick brown fox jumps over the lazy dog\n".repeat(400));
    // A pid that surely belongs to no process any more: one of a child that has exited.
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    const dead = `tessera-train-scratch-${deadPid}-abc123`;
    const live = `tessera-train-scratch-${process.ppid}-def456`;
    await mkdir(join(scratch, dead));
    await writeFile(join(scratch, dead, "trained.gguf"), "partial");
    await mkdir(join(scratch, live));
    process.env.TMPDIR = scratch;
    await trainModel({
      start,
      output: join(folder, "out.gguf"),
      corpus: { kind: "text", path: corpus, validationFraction: 0.05 },
      threads: 1,
      warmupSteps: 1,
      shardSize: 64,
    });
    expect(await readdir(scratch)).toEqual([live]);
  }, 120_000);
});
