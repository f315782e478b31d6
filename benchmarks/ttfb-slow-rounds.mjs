// Which rows of a `bench ttfb` result were slow in the same rounds. A run is slow when its first token took
// more than --factor times its row's lower quartile at that prompt length (not its median: in a run where
// most of a row's runs were slow, the median is a slow one). For each other row, prints how often it
// was slow in the rounds where the reference row was slow, and in the rounds where it was not: a row slow
// mostly together with the reference shares its cause (a state of the machine during those rounds), one
// slow as often either way does not. Reads a result's JSON; runs nothing.
//   node benchmarks/ttfb-slow-rounds.mjs <ttfb.json> [--reference "tessera serve (HTTP)"] [--factor 1.5]
import { readFileSync } from "node:fs";
import { failArgument, parseBenchCommandLine } from "./lib/bench-arguments.mjs";

const script = "ttfb-slow-rounds";
const fail = (message) => failArgument(script, message);
const {
  values,
  positionals: [file],
} = parseBenchCommandLine(
  script,
  {
    reference: { type: "string", default: "tessera serve (HTTP)" },
    factor: { type: "string", default: "1.5" },
  },
  1,
  'node benchmarks/ttfb-slow-rounds.mjs <ttfb.json> [--reference "<row name>"] [--factor <number over 1>]',
);
const factor = Number(values.factor);
if (!/^\d+(\.\d+)?$/.test(values.factor) || !(factor > 1))
  fail(`--factor must be a number over 1, such as 1.5; got ${values.factor}`);
let result;
try {
  result = JSON.parse(readFileSync(file, "utf8"));
} catch (error) {
  fail(
    `cannot read ${file} as JSON (${error.code ?? error.message}): give the ttfb.json that \`bench ttfb\` wrote`,
  );
}
if (!Array.isArray(result?.runs)) fail(`${file} has no runs: give the ttfb.json that \`bench ttfb\` wrote`);
const wellFormed = (run) =>
  run !== null &&
  typeof run === "object" &&
  typeof run.target === "string" &&
  Number.isInteger(run.run) &&
  Number.isInteger(run.promptTokens);
const runs = result.runs.filter(wellFormed);
if (runs.length < result.runs.length)
  fail(
    `${result.runs.length - runs.length} of the ${result.runs.length} runs in ${file} lack a target, run or promptTokens: give the ttfb.json that \`bench ttfb\` wrote`,
  );
const rowNames = new Set(runs.map((run) => run.target));
if (!rowNames.has(values.reference))
  fail(
    `no row "${values.reference}" in ${file}; its rows: ${[...rowNames].map((name) => `"${name}"`).join(", ")}`,
  );

const lowerQuartile = (numbers) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 4)];
};

const lengths = [...new Set(runs.map((run) => run.promptTokens))].sort((a, b) => a - b);
for (const promptTokens of lengths) {
  // row name → run index → whether that run was slow (successful runs only)
  const slow = new Map();
  const byRow = new Map();
  for (const run of runs) {
    if (run.promptTokens !== promptTokens || !run.ok || typeof run.firstContentMs !== "number") continue;
    if (!byRow.has(run.target)) byRow.set(run.target, []);
    byRow.get(run.target).push(run);
  }
  for (const [row, runs] of byRow) {
    const limit = factor * lowerQuartile(runs.map((run) => run.firstContentMs));
    slow.set(row, new Map(runs.map((run) => [run.run, run.firstContentMs > limit])));
  }
  const reference = slow.get(values.reference);
  if (reference === undefined) {
    console.log(`${promptTokens} tokens: no successful runs of "${values.reference}"`);
    continue;
  }
  const slowRounds = [...reference].filter(([, isSlow]) => isSlow).length;
  console.log(
    `${promptTokens} tokens: "${values.reference}" slow (over ${factor}× its lower quartile) in ${slowRounds} of ${reference.size} rounds`,
  );
  for (const [row, runs] of slow) {
    if (row === values.reference) continue;
    const counts = { together: [0, 0], apart: [0, 0] };
    for (const [index, isSlow] of runs) {
      const referenceSlow = reference.get(index);
      if (referenceSlow === undefined) continue;
      const bucket = referenceSlow ? counts.together : counts.apart;
      bucket[1]++;
      if (isSlow) bucket[0]++;
    }
    console.log(
      `  ${row.padEnd(38)} slow in ${counts.together[0]}/${counts.together[1]} of those rounds, ${counts.apart[0]}/${counts.apart[1]} of the others`,
    );
  }
}
