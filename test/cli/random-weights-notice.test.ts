// A random-weight preset writes noise; run, chat, inspect and serve say so once, in one stderr line,
// with the way to a real model, also for a generated random-weight file given by path. A trained model
// (a preset marked so, or a file with a training record) gets no line.
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { modelPresets, presetHasRandomWeights } from "../../src/gguf/model-presets.js";
import { linesOf, runCli } from "./support/run-cli.js";

const notice =
  "tessera: note: tiny has random weights (a test and benchmark model), so its output is noise; " +
  "to see real text, pass a trained GGUF model with --model path.gguf";

// The random-weight preset by name: the default model (tiny-text) is trained and gets no notice.
const common = ["--model", "tiny", "--threads", "1", "-n", "2", "--ignore-eos"];

describe("the random-weights notice", () => {
  it("is printed once by run", async () => {
    const result = await runCli(["run", ...common, "Hello"]);
    expect(result.code).toBe(0);
    expect(linesOf(result.stderr)).toEqual([notice]);
  });

  it("is printed once by chat, however many turns", async () => {
    const result = await runCli(["chat", ...common], { input: "Hello\nAgain\n" });
    expect(result.code).toBe(0);
    expect(linesOf(result.stderr)).toEqual([notice]);
  });

  it("is printed once by inspect", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "tessera-notice-")), "page.html");
    const result = await runCli(["inspect", ...common, "-o", out, "Hello"]);
    expect(result.code).toBe(0);
    expect(linesOf(result.stderr)).toEqual([notice]);
  });

  it("is printed once by serve", async () => {
    const child = spawn(
      process.execPath,
      ["dist/cli/main.js", "serve", "--model", "tiny", "--threads", "1", "--port", "0"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const closed = new Promise((done) => child.on("close", done));
    try {
      const until = Date.now() + 30_000;
      while (!stdout.includes("tessera serve:")) {
        if (Date.now() > until) throw new Error(`serve did not start:\n${stderr}`);
        await new Promise((done) => setTimeout(done, 50));
      }
    } finally {
      child.kill("SIGTERM");
    }
    await closed;
    expect(linesOf(stderr)).toEqual([notice]);
  });

  it("is printed for a random-weight model given by path (its metadata records the synthetic seed)", async () => {
    const path = resolve("models/tiny-f32.gguf");
    const result = await runCli(["run", ...common.slice(2), "--model", path, "Hello"]);
    expect(result.code).toBe(0);
    expect(linesOf(result.stderr)).toEqual([notice.replace("note: tiny has", `note: ${path} has`)]);
  });

  it("is not printed for a trained model given by path (its metadata carries a training record)", async () => {
    const result = await runCli([
      "run",
      ...common.slice(2),
      "--model",
      resolve("models/tiny-text.gguf"),
      "Hello",
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
  });

  it("is not printed for the default model, the trained tiny-text", async () => {
    const result = await runCli(["run", ...common.slice(2), "Hello"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
  });

  it("is not printed by the throughput benchmark, where random weights are the point", async () => {
    const out = mkdtempSync(join(tmpdir(), "tessera-notice-"));
    const result = await runCli(["bench", "throughput", "--quick", "--json", "--out", out], {
      timeoutMs: 180_000,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/random weights/);
  }, 200_000);

  it("is decided by the preset's weights flag, which a trained preset sets", () => {
    expect(presetHasRandomWeights(modelPresets.tiny)).toBe(true);
    expect(presetHasRandomWeights({ ...modelPresets.tiny, weights: "trained" })).toBe(false);
  });
});
