// The per-token row passes of native/src/logits-capture.cpp, timed on real logits rows: 32 raw rows of a
// greedy generation are captured in full through the addon, then benchmarks/row-passes/row-passes.cpp is
// compiled against logits-capture.cpp (g++ -O3, as the addon: its load-time clone choice included) and
// times scanRow, summarizeRow and topKDense on them. Run after `npm run build`:
//   node benchmarks/row-passes.mjs [--model tiny] [--repetitions 4000]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { resolveModel } from "../dist/gguf/default-model.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    repetitions: { type: "string", default: "4000" },
  },
});
// The C++ timer reads it with atoi: past 2^31 - 1 it would wrap.
if (!/^[1-9]\d*$/.test(values.repetitions) || Number(values.repetitions) > 2_147_483_647) {
  throw new Error(`--repetitions must be a whole number from 1 to 2147483647, got ${values.repetitions}`);
}
const root = resolve(import.meta.dirname, "..");
const cache = join(root, "native", ".cache");
const extracted = readdirSync(cache).find((name) => existsSync(join(cache, name, "include", "llama.h")));
if (extracted === undefined) throw new Error(`no llama.cpp headers in ${cache}: run npm run build:native`);
const folder = mkdtempSync(join(tmpdir(), "tessera-row-passes-"));
// The compiler and the benchmark run as children, asynchronously, so an interrupt (Ctrl-C, or a signal to
// this process alone) reaches these handlers: they stop the child and remove the temporary folder.
const children = new Set();
function run(command, args) {
  return new Promise((done, fail) => {
    // Its own process group (spawn's detached; execFile does not pass it on), so an interrupt stops g++'s
    // cc1plus and as too; TMPDIR inside the folder, so their temporary files go with it.
    const child = spawn(command, args, {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, TMPDIR: folder },
    });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text) => {
      stdout += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text) => {
      stderr += text;
    });
    child.once("error", (error) => {
      children.delete(child);
      fail(error);
    });
    child.once("close", (code, signal) => {
      children.delete(child);
      if (code === 0) done(stdout);
      else fail(new Error(`${command} failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-2000)}`));
    });
  });
}
// SIGHUP too: the children run in their own process group, so a closed terminal reaches only this process.
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
]) {
  process.once(signal, () => {
    for (const child of children) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is gone already; the child itself, should it not lead one, still gets the signal.
        child.kill("SIGKILL");
      }
    }
    rmSync(folder, { recursive: true, force: true });
    process.exit(code);
  });
}
try {
  const model = await loadLlamaModel(await resolveModel(values.model));
  const context = await model.createContext({
    contextSize: 256,
    threads: 1,
    flashAttention: "off",
    sequences: 1,
  });
  const stream = context.generate(model.tokenize("Once upon a time there was a river stone garden"), {
    maxTokens: 32,
    temperature: 0,
    ignoreEos: true,
    rawLogits: "full",
  });
  const rows = [];
  for await (const batch of stream.batches()) {
    for (const event of batch.events) rows.push(Buffer.from(event.rawLogits.full.slice().buffer));
  }
  await stream.result;
  context.dispose();
  const rowsPath = join(folder, "rows.bin");
  writeFileSync(rowsPath, Buffer.concat(rows));
  const binary = join(folder, "row-passes");
  await run("g++", [
    "-std=gnu++17",
    "-O3",
    `-I${join(root, "native", "src")}`,
    `-I${join(cache, extracted, "include")}`,
    `-I${join(cache, extracted, "ggml", "include")}`,
    join(root, "benchmarks", "row-passes", "row-passes.cpp"),
    join(root, "native", "src", "logits-capture.cpp"),
    "-o",
    binary,
  ]);
  process.stdout.write(await run(binary, [rowsPath, String(model.vocabSize), values.repetitions]));
} finally {
  rmSync(folder, { recursive: true, force: true });
}
