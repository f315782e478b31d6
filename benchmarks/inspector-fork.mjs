#!/usr/bin/env node
// The live inspector's branch cost: time from the fork call (what clicking an alternative sends) to the
// first token of the new branch, at 16, 256 and 1024 tokens of prefix, against prefilling the same
// tokens again (a fresh sequence of another context, prefix reuse off), as the inspectors that re-send
// the text do. In-process through the public API (LlamaBranchPool.fork → branch.read(1)); the page adds
// one local HTTP request and an SSE event on top of both.
//
//   npm run build:ts && nice node benchmarks/inspector-fork.mjs [--runs 10] [--model path.gguf] [--threads 1] [--out benchmarks/results]
//
// Runs are paired and interleaved (fork, re-prefill; then re-prefill, fork on the next run; every prefix
// length in each run), after one unmeasured warm-up of each, so a noisy minute hits both alike. Figures
// are medians; the ratio is the median of the per-run ratios.
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    model: { type: "string" },
    threads: { type: "string", default: "1" },
    out: { type: "string" },
  },
});
const runs = Number(flags.runs);
const threads = Number(flags.threads);
const prefixes = [16, 256, 1024];
const forkAt = 4;

const { LlamaBranchPool, loadLlamaModel } = await import(pathToFileURL(resolve("dist/index.js")).href);
const { resolveDefaultModel } = await import(pathToFileURL(resolve("dist/gguf/default-model.js")).href);
const modelPath = flags.model ?? (await resolveDefaultModel());
const model = await loadLlamaModel(modelPath);
const contextOptions = { contextSize: 2048, batchSize: 512, threads };
const forkContext = await model.createContext({ ...contextOptions, sequences: 2 });
const prefillContext = await model.createContext({ ...contextOptions, sequences: 1 });
const options = { temperature: 0, ignoreEos: true, rawLogits: 2, queueCapacity: 4 };

const text =
  "The inspector shows every token with its raw and processed probabilities, and a click on an alternative " +
  "starts a new branch from that token. ";
let seed = 0;
/** `length` prompt tokens, salted so that no run shares a prefix with the one before it. */
function promptOf(length) {
  const salt = model.tokenize(`run ${seed++}: `);
  const body = model.tokenize(text.repeat(Math.ceil(length / 20) + 2), { addSpecial: false });
  return Int32Array.from([...salt, ...body].slice(0, length));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Fork at `forkAt` of a held root whose prompt + first forkAt tokens make `prefix` tokens. */
async function timeFork(prefix) {
  const pool = new LlamaBranchPool(forkContext);
  const root = pool.start(promptOf(prefix - forkAt), options);
  const events = await root.read(forkAt + 2);
  const alternative = Array.from(events[forkAt].rawLogits.topIds).find((id) => id !== events[forkAt].token);
  const decodedBefore = forkContext.counters.promptTokensDecoded;
  const started = performance.now();
  const branch = await pool.fork(root, forkAt, { token: alternative });
  await branch.read(1);
  const elapsed = performance.now() - started;
  const decoded = forkContext.counters.promptTokensDecoded - decodedBefore;
  const result = await branch.release();
  await pool.close();
  return { ms: elapsed, promptTokens: result.promptTokens, reused: result.reusedPromptTokens, decoded };
}

/** The same number of prompt tokens prefilled from nothing (reuse off) to the first token. */
async function timePrefill(prefix) {
  const prompt = promptOf(prefix + 1);
  const started = performance.now();
  const stream = prefillContext.generate(prompt, { ...options, reusePrefix: false });
  const iterator = stream[Symbol.asyncIterator]();
  await iterator.next();
  const elapsed = performance.now() - started;
  await iterator.return();
  const result = await stream.result;
  return { ms: elapsed, promptTokens: result.promptTokens, reused: result.reusedPromptTokens };
}

for (const prefix of prefixes) {
  await timeFork(prefix);
  await timePrefill(prefix);
}
const samples = Object.fromEntries(prefixes.map((prefix) => [prefix, { fork: [], prefill: [], ratio: [] }]));
for (let run = 0; run < runs; run++) {
  for (const prefix of prefixes) {
    const forkFirst = run % 2 === 0;
    const a = forkFirst ? await timeFork(prefix) : await timePrefill(prefix);
    const b = forkFirst ? await timePrefill(prefix) : await timeFork(prefix);
    const [fork, prefill] = forkFirst ? [a, b] : [b, a];
    samples[prefix].fork.push(fork);
    samples[prefix].prefill.push(prefill);
    samples[prefix].ratio.push(prefill.ms / fork.ms);
  }
  process.stderr.write(`run ${run + 1}/${runs}\n`);
}

const rows = prefixes.map((prefix) => {
  const entry = samples[prefix];
  return {
    prefixTokens: prefix,
    forkMedianMs: median(entry.fork.map((sample) => sample.ms)),
    prefillMedianMs: median(entry.prefill.map((sample) => sample.ms)),
    ratioMedian: median(entry.ratio),
    forkPromptTokensDecoded: Math.max(...entry.fork.map((sample) => sample.decoded)),
    forkReusedPromptTokens: Math.min(...entry.fork.map((sample) => sample.reused)),
    prefillReusedPromptTokens: Math.max(...entry.prefill.map((sample) => sample.reused)),
  };
});
const report = {
  benchmark: "inspector-fork",
  date: new Date().toISOString(),
  command: `node benchmarks/inspector-fork.mjs ${process.argv.slice(2).join(" ")}`.trim(),
  machine: {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage1m: loadavg()[0],
    note: "shared machine: 2 cores used by several agents at once; figures are noisy, the paired ratios less so",
  },
  node: process.version,
  model: modelPath,
  threads,
  runs,
  rows,
  samples,
};
const table = [
  "| prefix tokens | fork → first token (median ms) | re-prefill → first token (median ms) | ratio (median of paired) | prompt tokens decoded by the fork | reused by the fork |",
  "|---:|---:|---:|---:|---:|---:|",
  ...rows.map(
    (row) =>
      `| ${row.prefixTokens} | ${row.forkMedianMs.toFixed(2)} | ${row.prefillMedianMs.toFixed(2)} | ${row.ratioMedian.toFixed(1)}× | ${row.forkPromptTokensDecoded} | ${row.forkReusedPromptTokens} |`,
  ),
].join("\n");
process.stdout.write(`${table}\n`);
if (flags.out !== undefined) {
  writeFileSync(join(flags.out, "inspector-fork.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(
    join(flags.out, "inspector-fork.md"),
    `# Branching in the live inspector: fork vs re-prefill\n\n${report.date}; ${report.machine.cpu} (${report.machine.cores} cores, load ${report.machine.loadAverage1m.toFixed(2)}), ${report.node}, model \`${modelPath.split("/").pop()}\`, ${threads} thread, ${runs} paired runs.\n` +
      `${report.machine.note}.\n\n\`${report.command}\`\n\n${table}\n\n` +
      "The fork copies the held source's KV cells (llama_memory_seq_cp) and decodes only the alternative token; " +
      "the re-prefill decodes every prompt token again from an empty sequence, as inspectors that re-send the text do.\n",
  );
}
forkContext.dispose();
prefillContext.dispose();
model.dispose();
