// Pools several `bench ttfb` results: for each comparison the report makes run by run (a row against its
// reference, at one prompt length), the median over every pair of every given run, with p10-p90, and the
// median of the paired differences in ms. One run of 20 pairs on this shared 2-core VM moves a ratio by
// ±10%; pooling the runs of a round gives the figure its runs agree on. Quantiles as the reports take
// them (dist/bench/stats.js, so `npm run build` first).
//   node benchmarks/ttfb-pool.mjs <result folder or ttfb.json> [more ...]
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { percentile } from "../dist/bench/stats.js";
import { failArgument } from "./lib/bench-arguments.mjs";

const script = "ttfb-pool";
const usage = "give one or more bench ttfb result folders (or ttfb.json files)";
const inputs = process.argv.slice(2);
if (inputs.length === 0 || inputs.some((input) => input === "--help" || input === "-h"))
  failArgument(script, usage);

const pairs = new Map();
const files = new Set();
/** What must match for pairs to pool: the model, machine and settings, as the first result has them. */
let first;
for (const input of inputs) {
  const file = existsSync(input) && statSync(input).isDirectory() ? join(input, "ttfb.json") : input;
  if (!existsSync(file)) failArgument(script, `no ${file}: run bench ttfb with --out <folder> first`);
  // The same run given twice would count its pairs twice.
  const real = realpathSync(file);
  if (files.has(real)) failArgument(script, `${input} is given twice; give each result once`);
  files.add(real);
  let result;
  try {
    result = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    failArgument(script, `${file} is not JSON: ${error.message}`);
  }
  if (result.benchmark !== "ttfb" || !Array.isArray(result.runs))
    failArgument(script, `${file} is not a bench ttfb result`);
  const conditions = {
    model: result.model,
    machine: result.machine?.cpu,
    threads: result.threads,
    maxTokens: result.settings?.maxTokens,
    flashAttention: result.settings?.flashAttention,
  };
  first ??= { file, conditions };
  for (const [name, value] of Object.entries(conditions)) {
    const expected = first.conditions[name];
    if (JSON.stringify(value) !== JSON.stringify(expected))
      failArgument(
        script,
        `${file} has ${name} ${JSON.stringify(value)} where ${first.file} has ${JSON.stringify(expected)}: pool runs of one setup only`,
      );
  }
  const firstToken = new Map();
  for (const run of result.runs) {
    if (run.ok && typeof run.firstContentMs === "number")
      firstToken.set(`${run.target}\u0000${run.promptTokens}\u0000${run.run}`, run.firstContentMs);
  }
  for (const { target, reference } of comparisonsOf(result)) {
    for (const run of result.runs) {
      if (run.target !== target) continue;
      const mine = firstToken.get(`${target}\u0000${run.promptTokens}\u0000${run.run}`);
      const theirs = firstToken.get(`${reference}\u0000${run.promptTokens}\u0000${run.run}`);
      if (mine === undefined || theirs === undefined) continue;
      const key = `${target}\u0000${reference}\u0000${run.promptTokens}`;
      const list = pairs.get(key) ?? { ratios: [], differences: [] };
      list.ratios.push(mine / theirs);
      list.differences.push(mine - theirs);
      pairs.set(key, list);
    }
  }
}

/** The comparisons a result reports (its comparisons table), as target and reference names. */
function comparisonsOf(result) {
  const seen = new Map();
  for (const comparison of result.comparisons ?? []) {
    seen.set(`${comparison.target}\u0000${comparison.reference}`, {
      target: comparison.target,
      reference: comparison.reference,
    });
  }
  return [...seen.values()];
}

if (pairs.size === 0)
  failArgument(script, "no run of these results pairs a row with its reference: nothing to pool");
console.log(`Pooled over ${inputs.length} run(s): ${inputs.join(", ")}\n`);
console.log(
  "| row | against | prompt tokens | pairs | ratio (median) | p10 – p90 | difference (median, ms) |",
);
console.log("| :--- | :--- | ---: | ---: | ---: | ---: | ---: |");
for (const [key, { ratios, differences }] of pairs) {
  const [target, reference, promptTokens] = key.split("\u0000");
  console.log(
    `| ${target} | ${reference} | ${promptTokens} | ${ratios.length} | ${percentile(ratios, 0.5).toFixed(3)}× | ` +
      `${percentile(ratios, 0.1).toFixed(2)} – ${percentile(ratios, 0.9).toFixed(2)} | ${percentile(differences, 0.5).toFixed(2)} |`,
  );
}
