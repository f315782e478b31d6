// With no processing samplers the processed row is the raw row: when both are captured in full, the
// decode thread keeps one copy and a pull hands it out twice. Each event must still get its own rows, the
// processed one equal to the raw one, and a sampler chain must still give its own processed row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { loadTinyModel } from "./tiny-model.js";

describe("full captures of raw and processed rows", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 256, threads: 1 });
    prompt = model.tokenize("The quick brown fox");
  });
  afterAll(() => model.dispose());

  async function events(options: Record<string, unknown>): Promise<TokenEvent[]> {
    const collected: TokenEvent[] = [];
    // A slow reader, so batches hold several events and rows must not be mixed up between them.
    for await (const batch of context
      .generate(prompt, { maxTokens: 12, ignoreEos: true, reusePrefix: false, ...options })
      .batches()) {
      collected.push(...batch.events);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return collected;
  }

  for (const [name, sampling] of [
    ["greedy", { temperature: 0 }],
    ["a draw at temperature 1", { temperature: 1, seed: 3 }],
  ] as const) {
    it(`${name}: the processed row is each event's raw row`, async () => {
      const both = await events({ ...sampling, logits: "full", rawLogits: "full" });
      const rawOnly = await events({ ...sampling, rawLogits: "full" });
      expect(both.map((event) => event.token)).toEqual(rawOnly.map((event) => event.token));
      both.forEach((event, index) => {
        const raw = event.rawLogits!.full!;
        const processed = event.logits!.full!;
        expect(processed).not.toBe(raw);
        expect(Array.from(processed)).toEqual(Array.from(raw));
        expect(Array.from(raw)).toEqual(Array.from(rawOnly[index]!.rawLogits!.full!));
      });
    });
  }

  it("a sampler chain still captures its own processed row", async () => {
    const chained = await events({ temperature: 0.8, topK: 5, seed: 1, logits: "full", rawLogits: "full" });
    for (const event of chained) {
      const processed = event.logits!.full!;
      expect(processed.filter((value) => value > Number.NEGATIVE_INFINITY).length).toBeLessThanOrEqual(5);
      expect(event.rawLogits!.full!.every((value) => Number.isFinite(value))).toBe(true);
    }
  });
});
