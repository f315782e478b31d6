// The C++ greedy runner builds against node-llama-cpp's prebuilt libraries in a few seconds and prints
// valid JSON in each mode; through GreedyRunnerProcess it answers requests with one piece per token.
// Skipped, with the reason, where g++ or the extracted llama.cpp headers are missing.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { prebuiltLibraryFolder } from "../../src/backends/llamacpp/native-addon.js";
import { GreedyRunnerProcess, greedyRunnerBinary } from "../../src/bench/greedy-runner-process.js";
import { resolveDefaultModel } from "../../src/gguf/default-model.js";

const compiler = spawnSync(process.env.CXX ?? "g++", ["--version"], { stdio: "ignore" });
const build =
  compiler.status === 0
    ? spawnSync(process.execPath, ["benchmarks/greedy-runner/build.mjs"], {
        encoding: "utf8",
        timeout: 60_000,
      })
    : null;
const skipReason =
  build === null
    ? "g++ is not installed"
    : build.status !== 0
      ? `the runner does not build here: ${build.stderr.trim().split("\n").at(-1)}`
      : null;
if (skipReason !== null) console.warn(`greedy runner tests skipped: ${skipReason}`);

/** 32-bit FNV-1a, as the runner computes it. */
function fnv1a(bytes: Uint8Array): number {
  let hash = 2166136261;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash;
}

describe.skipIf(skipReason !== null)("the C++ greedy runner", () => {
  const run = (args: string[]) =>
    execFileSync(greedyRunnerBinary(), args, { encoding: "utf8", timeout: 60_000 })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("prints one JSON object per repetition in greedy mode and one with every sample in tg mode", async () => {
    const model = await resolveDefaultModel();
    const libraries = prebuiltLibraryFolder("")!;
    // In a folder of its own, removed afterwards: a file per run was left in the temporary folder.
    const folder = mkdtempSync(join(tmpdir(), "greedy-runner-prompt-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const promptFile = join(folder, "prompt.txt");
    writeFileSync(promptFile, "The quick brown fox jumps over the lazy dog.");
    const common = ["--model", model, "--libs", libraries, "--threads", "1", "--context", "256"];
    const greedy = run([
      ...common,
      "--mode",
      "greedy",
      "--prompt-file",
      promptFile,
      "--tokens",
      "5",
      "--reps",
      "2",
    ]);
    expect(greedy).toHaveLength(2);
    for (const line of greedy) {
      expect(line.generatedTokens).toBe(5);
      expect(line.promptTokens as number).toBeGreaterThan(5);
      expect(line.firstTokenMs as number).toBeGreaterThan(line.tokenizeMs as number);
      expect(line.decodeTokensPerSecond as number).toBeGreaterThan(0);
    }
    const [tg] = run([...common, "--mode", "tg", "--tokens", "8", "--reps", "3", "--depth", "16"]);
    expect(tg).toMatchObject({ mode: "tg", tokens: 8, depth: 16 });
    expect(tg!.samples as number[]).toHaveLength(3);
    expect((tg!.samples as number[]).every((sample) => sample > 0)).toBe(true);
  }, 60_000);

  it("answers stdin requests with a piece and a rising time per token, and tg requests with a rate", async () => {
    const runner = await GreedyRunnerProcess.start({
      modelPath: await resolveDefaultModel(),
      threads: 1,
      contextSize: 256,
      chat: true,
    });
    try {
      // A prompt with characters the runner's minimal JSON reader must unescape.
      const text = 'Say "hi"\nand\tthen \\ stop — ok? \u0001';
      const generation = await runner.generate(text, 6);
      // The runner's minimal JSON reader unescaped the request exactly: its hash of the text is ours.
      expect(generation.textHash).toBe(fnv1a(Buffer.from(text, "utf8")));
      expect(generation.pieces).toHaveLength(6);
      expect(generation.times).toHaveLength(6);
      for (let index = 1; index < 6; index++)
        expect(generation.times[index]!).toBeGreaterThan(generation.times[index - 1]!);
      expect(generation.firstTokenMs).toBe(generation.times[0]);
      const rate = await runner.tokenGeneration(4, 8);
      expect(rate).toBeGreaterThan(0);
    } finally {
      runner.close();
    }
  }, 60_000);

  it("feeds a prompt longer than its batch in batch-sized chunks, as tessera's engine does", async () => {
    const runner = await GreedyRunnerProcess.start({
      modelPath: await resolveDefaultModel(),
      threads: 1,
      contextSize: 512,
      batchSize: 32,
      chat: false,
    });
    try {
      const generation = await runner.generate(
        "one two three four five six seven eight nine ten ".repeat(12),
        2,
      );
      expect(generation.promptTokens).toBeGreaterThan(3 * 32);
      expect(generation.pieces).toHaveLength(2);
    } finally {
      runner.close();
    }
  }, 60_000);
});
