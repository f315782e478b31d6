// Decode speed with the decode thread waking the reader per token (deliveryDelayMs 0) against holding
// wake-ups for a few steps (deliveryDelayMs D), alternating in one process; a reader that is always
// waiting, greedy, 256 tokens, tiny F32, 1 thread. Run after `npm run build`:
//   DELAYS=0,2 R=20 node benchmarks/delivery-delay.mjs

import { loadLlamaModel } from "../dist/backends/llamacpp/llama-model.js";
import { resolveModel } from "../dist/gguf/default-model.js";

const model = await loadLlamaModel(await resolveModel(process.env.MODEL ?? "tiny"));
const context = await model.createContext({
  contextSize: 1024,
  threads: 1,
  flashAttention: "off",
  sequences: 1,
});
const prompt = model.tokenize("Once upon a time there was a river stone garden letter window morning");
const delays = (process.env.DELAYS ?? "0,2").split(",").map(Number);
const rates = Object.fromEntries(delays.map((d) => [d, []]));
const ratios = [];
for (let r = 0; r < Number(process.env.R ?? 20); r++) {
  const round = {};
  for (const d of r % 2 ? [...delays].reverse() : delays) {
    const s = context.generate(prompt, {
      maxTokens: 256,
      temperature: 0,
      ignoreEos: true,
      tokenLogprobs: false,
      reusePrefix: false,
      deliveryDelayMs: d,
    });
    let wakes = 0;
    for await (const _ of s.batches()) wakes++;
    const res = await s.result;
    round[d] = ((res.generatedTokens - 1) * 1000) / res.timings.decodeMs;
    rates[d].push(round[d]);
    round["w" + d] = wakes;
  }
  ratios.push(round[delays[1]] / round[delays[0]]);
  if (r === 0) console.log("batches per run:", delays.map((d) => `${d} ms: ${round["w" + d]}`).join(", "));
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
console.log(
  delays.map((d) => `delay ${d}: ${med(rates[d]).toFixed(0)} tok/s`).join(", "),
  `ratio ${med(ratios).toFixed(3)}`,
);
context.dispose();
await model[Symbol.asyncDispose]();
