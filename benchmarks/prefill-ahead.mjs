// First token with and without the prefill-ahead (LlamaCppBackend's `prefillAhead`, docs/native.md), in one
// process: two backends on the same model, 1 thread, flash attention off, one sequence each, take turns
// (a new random order each round) on unique chat prompts of each length, as bench ttfb's tessera row runs
// them. Prints the median first token of each and the median of the per-round ratios (on ÷ off), with
// the p10-p90 of the ratios, and checks that both answered the same greedy tokens. Run after `npm run build`:
//   node benchmarks/prefill-ahead.mjs [--model tiny] [--prompt-tokens 256,1024] [--rounds 30] [--skip 5] [--markdown]
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { median, percentile } from "../dist/bench/stats.js";
import { buildUniquePrompt } from "../dist/bench/unique-prompts.js";
import { CBlock, LlamaCppBackend, SimpleContext } from "../dist/index.js";
import { failArgument, parseBenchArguments, resolveBenchModel } from "./lib/bench-arguments.mjs";

const fail = (message) => failArgument("prefill-ahead", message);
const values = parseBenchArguments("prefill-ahead", {
  model: { type: "string", default: "tiny" },
  "prompt-tokens": { type: "string", default: "256,1024" },
  rounds: { type: "string", default: "30" },
  skip: { type: "string", default: "5" },
  "max-tokens": { type: "string", default: "4" },
  markdown: { type: "boolean", default: false },
});
for (const name of ["rounds", "skip", "max-tokens"]) {
  if (!/^\d+$/.test(values[name])) fail(`--${name} must be a whole number, got ${values[name]}`);
}
const lengths = values["prompt-tokens"].split(",").map(Number);
if (lengths.some((length) => !Number.isInteger(length) || length < 8))
  fail(`--prompt-tokens must be whole numbers of at least 8, got ${values["prompt-tokens"]}`);
const rounds = Number(values.rounds);
const skip = Number(values.skip);
if (rounds <= skip) fail(`--rounds (${rounds}) must be more than --skip (${skip})`);
const maxNewTokens = Number(values["max-tokens"]);

const modelPath = await resolveBenchModel("prefill-ahead", values.model);
const settings = { model: modelPath, threads: 1, sequences: 1, flashAttention: "off", contextSize: 2048 };
const backends = {
  on: await LlamaCppBackend.create({ ...settings, prefillAhead: true }),
  off: await LlamaCppBackend.create({ ...settings, prefillAhead: false }),
};

/** First token (ms) and the generated text of one chat generation. */
async function firstToken(backend, prompt) {
  const startedAt = performance.now();
  const { thunk } = await backend.generateFromContext(new CBlock(prompt), new SimpleContext(), {
    modelOptions: { temperature: 0, maxNewTokens, ignoreEos: true },
  });
  let first = null;
  for await (const delta of thunk) if (first === null && delta !== "") first = performance.now() - startedAt;
  return { ms: first ?? Number.NaN, text: await thunk.avalue() };
}

// Prompt lengths are counted on the bare text, as bench ttfb sizes its prompts.
const counter = await loadLlamaModel(modelPath);
const rows = [];
let salt = 1;
try {
  for (const length of lengths) {
    const times = { on: [], off: [] };
    const ratios = [];
    let mismatches = 0;
    for (let round = 0; round < rounds; round++) {
      const { text } = await buildUniquePrompt(
        length,
        salt++,
        async (candidate) => counter.tokenize(candidate).length,
      );
      const order = Math.random() < 0.5 ? ["on", "off"] : ["off", "on"];
      const result = {};
      for (const name of order) result[name] = await firstToken(backends[name], text);
      if (result.on.text !== result.off.text) mismatches++;
      if (round < skip) continue;
      times.on.push(result.on.ms);
      times.off.push(result.off.ms);
      ratios.push(result.on.ms / result.off.ms);
    }
    rows.push({
      length,
      on: median(times.on),
      off: median(times.off),
      ratio: median(ratios),
      p10: percentile(ratios, 0.1),
      p90: percentile(ratios, 0.9),
      mismatches,
    });
  }
} finally {
  await Promise.all(Object.values(backends).map((backend) => backend.dispose()));
  counter.dispose();
}

const header = `Prefill ahead on ÷ off, first token, ${rounds - skip} rounds per length after ${skip} (model ${values.model}, 1 thread, flash attention off), ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`;
console.log(values.markdown ? `${header}\n` : header);
if (values.markdown) {
  console.log("| prompt tokens | on ms | off ms | on ÷ off (median) | p10 – p90 | answers differing |");
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
}
for (const row of rows) {
  const cells = [
    row.length,
    fixed(row.on, 2),
    fixed(row.off, 2),
    `${fixed(row.ratio, 3)}×`,
    `${fixed(row.p10, 2)} – ${fixed(row.p90, 2)}`,
    row.mismatches,
  ];
  console.log(values.markdown ? `| ${cells.join(" | ")} |` : cells.join("\t"));
}

/** A median of no finite values (every round failed to time) is null: printed as n/a. */
function fixed(value, digits) {
  return value === null ? "n/a" : value.toFixed(digits);
}
