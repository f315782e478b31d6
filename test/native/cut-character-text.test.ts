// Found in the final review: a stream cancelled while the decoder still held the first byte of a
// character added that byte's replacement character to its text at the end, though no token carried it,
// so `text` was longer than the texts of the events. The stream's text is now exactly its events' texts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { loadTinyModel } from "./tiny-model.js";

describe("the text of a stream cut inside a character", () => {
  let model: LlamaModel;
  beforeAll(async () => {
    model = await loadTinyModel();
  });
  afterAll(() => model.dispose());

  it("is the concatenation of its events' texts after a cancel", async () => {
    const context = await model.createContext({ contextSize: 256, threads: 1 });
    // Token 231 is the byte token <0xE4>: the lead byte of a 3-byte character that never completes.
    const stream = context.generate(model.tokenize("Hi"), {
      temperature: 0,
      maxTokens: 10,
      ignoreEos: true,
      logitBias: { 231: 100 },
      queueCapacity: 1,
    });
    let joined = "";
    let events = 0;
    for await (const event of stream) {
      joined += event.text;
      if (++events === 2) stream.cancel();
    }
    await stream.result.catch(() => undefined);
    expect(events).toBeGreaterThanOrEqual(2);
    expect(stream.text).toBe(joined);
    context.dispose();
  });
});
