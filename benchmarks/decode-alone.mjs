// Decode speed of tessera and of the C++ greedy runner, each ALONE on the machine: every round starts one
// fresh process per side (alternating which goes first), greedy, the same prompt, and reports the
// per-round ratio. `bench throughput` keeps both loaded at once (paired repetitions), and on this 2-core VM
// that layout made the runner ~10% faster on the 1B shape than it is alone, while tessera's speed did not
// change (docs/benchmarks.md, "1B decode"). Run after `npm run build`:
//   node benchmarks/decode-alone.mjs [--model llama-3.2-1b:q4_0] [--threads 1] [--rounds 5] [--tokens 33]
//     [--reference greedy|tg] [--huge-pages on|off]
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prebuiltLibraryFolder } from "../dist/backends/llamacpp/native-addon.js";
import { greedyRunnerBinary } from "../dist/bench/greedy-runner-process.js";
import { failArgument, parseBenchArguments, resolveBenchModel } from "./lib/bench-arguments.mjs";
import { runnerTgTokensPerSecond } from "./lib/greedy-runner-tg.mjs";

const values = parseBenchArguments("decode-alone", {
  model: { type: "string", default: "llama-3.2-1b:q4_0" },
  threads: { type: "string", default: "1" },
  rounds: { type: "string", default: "5" },
  tokens: { type: "string", default: "33" },
  child: { type: "boolean", default: false },
  // greedy: the runner's own greedy generation (arg-max, detokenize); tg: llama-bench's test_gen on the
  // same libraries (random tokens, logits never read) from an empty cache, as llama-bench's tg128.
  reference: { type: "string", default: "greedy" },
  // Both sides' huge-page advice (loadLlamaModel's hugePages, the runner's --huge-pages).
  "huge-pages": { type: "string", default: "on" },
});
for (const [name, minimum] of [
  ["threads", 1],
  ["rounds", 1],
  ["tokens", 2],
]) {
  if (!/^\d+$/.test(values[name]) || Number(values[name]) < minimum)
    failArgument(
      "decode-alone",
      `--${name} must be a whole number of at least ${minimum}, got ${values[name]}`,
    );
}
if (values.reference !== "greedy" && values.reference !== "tg")
  failArgument("decode-alone", `--reference must be greedy or tg; got ${values.reference}`);
if (values["huge-pages"] !== "on" && values["huge-pages"] !== "off")
  failArgument("decode-alone", `--huge-pages must be on or off; got ${values["huge-pages"]}`);
const hugePages = values["huge-pages"] === "on";
const modelPath = await resolveBenchModel("decode-alone", values.model);
const text = "Once upon a time there was a river stone garden letter window morning";
const tokens = Number(values.tokens);
const threads = Number(values.threads);

if (values.child) {
  // One tessera process, through the public API (backend → thunk → for await): load, one warm-up
  // generation, then the median of three.
  const { LlamaCppBackend } = await import("../dist/backends/llamacpp/llama-cpp-backend.js");
  const { CBlock } = await import("../dist/core/cblock.js");
  const { SimpleContext } = await import("../dist/stdlib/contexts/simple-context.js");
  const backend = await LlamaCppBackend.create({
    model: modelPath,
    threads,
    contextSize: 512,
    sequences: 1,
    flashAttention: "off",
    hugePages,
  });
  const rates = [];
  for (let run = 0; run < 4; run++) {
    const { thunk } = await backend.generateFromContext(new CBlock(text), new SimpleContext(), {
      modelOptions: { temperature: 0, maxNewTokens: tokens, ignoreEos: true },
    });
    for await (const _ of thunk) {
      // read every delta
    }
    const { usage, timings } = thunk.generation;
    if (run > 0) rates.push(((usage.completionTokens - 1) * 1000) / timings.decodeMs);
  }
  await backend.dispose();
  console.log(JSON.stringify(rates.sort((a, b) => a - b)[1]));
  process.exit(0);
}

const promptFile = join(tmpdir(), `tessera-decode-alone-${process.pid}.txt`);
writeFileSync(promptFile, text);
const runnerRate = () => {
  const common = ["--model", modelPath, "--libs", prebuiltLibraryFolder(""), "--threads", String(threads)];
  const run = (args) =>
    execFileSync(
      greedyRunnerBinary(),
      [...args, "--flash-attn", "off", "--huge-pages", values["huge-pages"]],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      },
    )
      .trim()
      .split("\n");
  if (values.reference === "tg")
    return runnerTgTokensPerSecond({ modelPath, threads, tokens: tokens - 1, hugePages });
  const lines = run([
    ...["--mode", "greedy", ...common, "--context", "512", "--prompt-file", promptFile],
    ...["--tokens", String(tokens), "--reps", "4"],
  ]).slice(1);
  return lines.map((line) => JSON.parse(line).decodeTokensPerSecond).sort((a, b) => a - b)[1];
};
const tesseraRate = () =>
  Number(
    execFileSync(process.execPath, [new URL(import.meta.url).pathname, "--child", ...process.argv.slice(2)], {
      encoding: "utf8",
    }).trim(),
  );

const ratios = [];
for (let round = 0; round < Number(values.rounds); round++) {
  const first = round % 2 === 0 ? tesseraRate : runnerRate;
  const second = first === tesseraRate ? runnerRate : tesseraRate;
  const a = first();
  const b = second();
  const [tessera, runner] = first === tesseraRate ? [a, b] : [b, a];
  ratios.push(tessera / runner);
  console.log(
    `round ${round + 1}: tessera ${tessera.toFixed(2)}, ${values.reference === "tg" ? "tg" : "runner"} ${runner.toFixed(2)} tokens/s, ratio ${(tessera / runner).toFixed(3)}`,
  );
}
const sorted = [...ratios].sort((a, b) => a - b);
// The mean of the two middle values for an even count (the upper one overstated --rounds 2).
const middle = sorted.length >> 1;
const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
const reference =
  values.reference === "tg"
    ? "tg on the same libraries (llama-bench's test, from an empty cache)"
    : "greedy runner";
console.log(
  `${modelPath}, ${threads} thread(s): tessera ÷ ${reference}, each alone: median ${median.toFixed(3)} (${sorted[0].toFixed(3)}-${sorted.at(-1).toFixed(3)})`,
);
