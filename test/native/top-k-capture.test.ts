// A top-k capture holds exactly the k largest logits of the row, largest first (ties: lower id first), as
// the full row says: the block skip in topKDense must never drop an entry. Checked on the 32k-token tiny
// model and on the 354-token tiny-text vocabulary (not a multiple of the 32-entry block).
import { describe, expect, it } from "vitest";
import { loadLlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveModel } from "../../src/gguf/default-model.js";

// Node 20 has no Array.fromAsync.
async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of source) items.push(item);
  return items;
}

function topOfRow(row: Float32Array, k: number): number[] {
  return Array.from(row.keys())
    .filter((id) => row[id]! > Number.NEGATIVE_INFINITY)
    .sort((a, b) => row[b]! - row[a]! || a - b)
    .slice(0, k);
}

describe("top-k captures", () => {
  for (const preset of ["tiny", "tiny-text"]) {
    it(`${preset}: raw and processed top-k are the full row's k largest, in order`, async () => {
      const model = await loadLlamaModel(await resolveModel(preset));
      const context = await model.createContext({ contextSize: 256, threads: 1 });
      try {
        const prompt = model.tokenize("The river stone");
        for (const k of [1, 7, 20, 50]) {
          for (const sampling of [{ temperature: 0 }, { temperature: 1, seed: 5 }]) {
            const common = { ...sampling, maxTokens: 10, ignoreEos: true, reusePrefix: false };
            const full = await collect(context.generate(prompt, { ...common, rawLogits: "full" }));
            const top = await collect(context.generate(prompt, { ...common, rawLogits: k, logits: k }));
            expect(top.map((event) => event.token)).toEqual(full.map((event) => event.token));
            top.forEach((event, index) => {
              const expected = topOfRow(full[index]!.rawLogits!.full!, k);
              expect(Array.from(event.rawLogits!.topIds!)).toEqual(expected);
              expect(Array.from(event.logits!.topIds!)).toEqual(expected);
            });
          }
        }
      } finally {
        context.dispose();
        await model[Symbol.asyncDispose]();
      }
    }, 120_000);
  }
});
