// Decode speed with logits captures against none, in one process and one context: each round decodes the
// same greedy generation with captures off, raw + processed top-20, and raw + processed full vectors (in
// alternating order), and the per-round ratios' medians are printed. Run after `npm run build`:
//   node [--expose-gc] benchmarks/capture-cost.mjs [--model tiny] [--threads 1] [--rounds 15] [--tokens 256]
//     [--modes off,top-20,full] [--keep-batches] [--collect-between] [--release-rows]
// --modes picks the modes that take turns (off first, always); fewer modes make more rounds per minute.
// --keep-batches holds each generation's batches (and so its full rows) until it ends, as a thunk's logits
// trace does; without it each batch is garbage once read, and its rows go back to the context's pool at the
// next collection. --collect-between (needs node --expose-gc) runs a full collection after each generation,
// outside the timed decode, so the kept rows are back in the pool before the next one starts.
// --release-rows gives each generation's kept rows back with releaseLogitsRows after it ends (also outside
// the timed decode), as a caller done with them would.
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { releaseLogitsRows } from "../dist/backends/llamacpp/release-logits-rows.js";
import { failArgument, parseBenchArguments, resolveBenchModel } from "./lib/bench-arguments.mjs";

const values = parseBenchArguments("capture-cost", {
  model: { type: "string", default: "tiny" },
  rounds: { type: "string", default: "15" },
  tokens: { type: "string", default: "256" },
  threads: { type: "string", default: "1" },
  modes: { type: "string", default: "off,top-20,full" },
  "keep-batches": { type: "boolean", default: false },
  "collect-between": { type: "boolean", default: false },
  "release-rows": { type: "boolean", default: false },
});
if (values["release-rows"] && !values["keep-batches"]) {
  failArgument("capture-cost", "--release-rows gives back the rows --keep-batches keeps: add --keep-batches");
}
if (values["collect-between"] && typeof globalThis.gc !== "function") {
  failArgument(
    "capture-cost",
    "--collect-between needs node's --expose-gc: node --expose-gc benchmarks/capture-cost.mjs ...",
  );
}
for (const [flag, least] of [
  ["rounds", 1],
  ["tokens", 2],
  ["threads", 1],
]) {
  const value = Number(values[flag]);
  if (!Number.isInteger(value) || value < least)
    failArgument("capture-cost", `--${flag} must be an integer of at least ${least} (got ${values[flag]})`);
}
const modes = {
  off: {},
  "top-20": { logits: 20, rawLogits: 20 },
  full: { logits: "full", rawLogits: "full" },
};
const chosen = values.modes.split(",");
if (chosen[0] !== "off" || chosen.length < 2 || chosen.some((mode) => !(mode in modes))) {
  failArgument("capture-cost", `--modes must be off followed by some of top-20,full (got ${values.modes})`);
}
const model = await loadLlamaModel(await resolveBenchModel("capture-cost", values.model));
const context = await model.createContext({
  contextSize: 1024,
  threads: Number(values.threads),
  flashAttention: "off",
  sequences: 1,
});
const prompt = model.tokenize("Once upon a time there was a river stone garden letter window morning");
const compared = chosen.slice(1);
const ratios = Object.fromEntries(compared.map((mode) => [mode, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  const rate = {};
  const order = round % 2 === 0 ? chosen : [...chosen].reverse();
  for (const mode of order) {
    const stream = context.generate(prompt, {
      maxTokens: Number(values.tokens),
      temperature: 0,
      ignoreEos: true,
      tokenLogprobs: false,
      reusePrefix: false,
      ...modes[mode],
    });
    const kept = [];
    for await (const batch of stream.batches()) {
      if (values["keep-batches"]) kept.push(batch);
    }
    const result = await stream.result;
    rate[mode] = ((result.generatedTokens - 1) * 1000) / result.timings.decodeMs;
    if (values["release-rows"]) {
      releaseLogitsRows(
        kept
          .flatMap((batch) => batch.events.flatMap((event) => [event.rawLogits?.full, event.logits?.full]))
          .filter(Boolean),
      );
    }
    kept.length = 0;
    if (values["collect-between"]) globalThis.gc();
  }
  for (const mode of compared) ratios[mode].push(rate[mode] / rate.off);
}
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
const label = { "top-20": "raw + processed top-20", full: "full" };
console.log(
  `${values.model}, ${Number(values.threads)} thread${Number(values.threads) === 1 ? "" : "s"}, greedy: ${compared.map((mode) => `${label[mode]} ÷ off ${median(ratios[mode]).toFixed(3)}`).join("; ")} (medians of ${values.rounds} rounds${values["keep-batches"] ? ", batches kept until each generation ends" : ""}${values["collect-between"] ? ", a collection between generations" : ""}${values["release-rows"] ? ", rows released after each generation" : ""})`,
);
context.dispose();
await model[Symbol.asyncDispose]();
