// Decode speed with logits captures against none, in one process and one context: each round decodes the
// same greedy generation with captures off, raw + processed top-20, and raw + processed full vectors (in
// alternating order), and the per-round ratios' medians are printed. Run after `npm run build`:
//   node benchmarks/capture-cost.mjs [--model tiny] [--rounds 15] [--tokens 256]
import { parseArgs } from "node:util";
import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { resolveModel } from "../dist/gguf/default-model.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "tiny" },
    rounds: { type: "string", default: "15" },
    tokens: { type: "string", default: "256" },
  },
});
const model = await loadLlamaModel(await resolveModel(values.model));
const context = await model.createContext({
  contextSize: 1024,
  threads: 1,
  flashAttention: "off",
  sequences: 1,
});
const prompt = model.tokenize("Once upon a time there was a river stone garden letter window morning");
const modes = {
  off: {},
  "top-20": { logits: 20, rawLogits: 20 },
  full: { logits: "full", rawLogits: "full" },
};
const ratios = { "top-20": [], full: [] };
for (let round = 0; round < Number(values.rounds); round++) {
  const rate = {};
  const order = round % 2 === 0 ? ["off", "top-20", "full"] : ["full", "top-20", "off"];
  for (const mode of order) {
    const stream = context.generate(prompt, {
      maxTokens: Number(values.tokens),
      temperature: 0,
      ignoreEos: true,
      tokenLogprobs: false,
      reusePrefix: false,
      ...modes[mode],
    });
    for await (const _ of stream.batches()) {
      // read every batch
    }
    const result = await stream.result;
    rate[mode] = ((result.generatedTokens - 1) * 1000) / result.timings.decodeMs;
  }
  ratios["top-20"].push(rate["top-20"] / rate.off);
  ratios.full.push(rate.full / rate.off);
}
const median = (list) => [...list].sort((a, b) => a - b)[list.length >> 1];
console.log(
  `${values.model}, 1 thread, greedy: raw + processed top-20 ÷ off ${median(ratios["top-20"]).toFixed(3)}; full ÷ off ${median(ratios.full).toFixed(3)} (medians of ${values.rounds} rounds)`,
);
context.dispose();
await model[Symbol.asyncDispose]();
