// Synthesis speed of the GGUF writer: MB/s written for a preset (default: llama-3.2-1b in q4_0, ~700 MB).
// Run after `npm run build`:
//   node benchmarks/gguf-synthesis.mjs [preset] [type ...] [--keep] [--dir <folder>]
// One line of JSON per type on stdout. The file goes to a temporary folder (or --dir) and is deleted
// unless --keep is given. Single-threaded: the figure is per core; `megabytesPerCpuSecond` is the one to
// compare on a shared machine.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePresetModel, modelPresets } from "../dist/gguf/index.js";

const args = process.argv.slice(2);
const keep = args.includes("--keep");
const dirIndex = args.indexOf("--dir");
const positional = args.filter(
  (arg, index) => !arg.startsWith("--") && (dirIndex < 0 || index !== dirIndex + 1),
);
const dir = dirIndex >= 0 ? args[dirIndex + 1] : mkdtempSync(join(tmpdir(), "tessera-gguf-synthesis-"));
const preset = positional[0] ?? "llama-3.2-1b";
if (!(preset in modelPresets))
  throw new Error(`unknown preset ${preset}; presets: ${Object.keys(modelPresets).join(", ")}`);
const types = positional.length > 1 ? positional.slice(1).map((type) => type.toUpperCase()) : ["Q4_0"];

for (const type of types) {
  const path = join(dir, `${preset}-${type.toLowerCase()}.gguf`);
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  let firstProgress;
  await generatePresetModel(preset, path, {
    type,
    onProgress: () => {
      firstProgress ??= performance.now();
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  // CPU time says what the code costs even when other processes share the cores (wall time does not).
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const bytes = statSync(path).size;
  console.log(
    JSON.stringify({
      benchmark: "gguf-synthesis",
      preset,
      type: type.toLowerCase(),
      bytes,
      seconds: Number(seconds.toFixed(2)),
      megabytesPerSecond: Number((bytes / 1024 / 1024 / seconds).toFixed(1)),
      cpuSeconds: Number(cpuSeconds.toFixed(2)),
      megabytesPerCpuSecond: Number((bytes / 1024 / 1024 / cpuSeconds).toFixed(1)),
      setupSeconds: Number(((firstProgress - started) / 1000).toFixed(2)),
      node: process.version,
      date: new Date().toISOString(),
    }),
  );
  if (!keep) rmSync(path, { force: true });
}
if (!keep && dirIndex < 0) rmSync(dir, { recursive: true, force: true });
