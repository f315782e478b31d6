// The backend checks a request's native options once, in prepareRequest, and starts exactly what it
// checked (startResolved), instead of resolving them again in LlamaContext.generate on the request path.
// Options resolved for one context must not start on a context of other sizes, nor on a disposed one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaDisposedError } from "../../src/backends/llamacpp/errors/llama-disposed-error.js";
import { type LlamaContext, startResolved } from "../../src/backends/llamacpp/llama-context.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import { resolveGenerateOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import { loadTinyModel } from "./tiny-model.js";

describe("startResolved", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let other: LlamaContext;
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({ threads: 1, contextSize: 256 });
    other = await model.createContext({ threads: 1, contextSize: 512 });
  });
  afterAll(() => model.dispose());

  const collect = async (stream: AsyncIterable<{ token: number }>) => {
    const tokens: number[] = [];
    for await (const event of stream) tokens.push(event.token);
    return tokens;
  };

  it("starts what resolveGenerateOptions checked, as generate does with the same options", async () => {
    const prompt = model.tokenize("The river runs");
    const options = { maxTokens: 6, temperature: 0.8, seed: 11 };
    const resolved = resolveGenerateOptions(prompt, options, model.vocabSize, context.sequenceContextSize);
    const started = await collect(startResolved(context, resolved));
    const generated = await collect(context.generate(prompt, options));
    expect(started).toHaveLength(6);
    expect(started).toEqual(generated);
    // An unseeded resolution draws its seed once: starting it twice samples the same tokens.
    const unseeded = resolveGenerateOptions(
      prompt,
      { maxTokens: 6, temperature: 0.8 },
      model.vocabSize,
      context.sequenceContextSize,
    );
    expect(await collect(startResolved(context, unseeded))).toEqual(
      await collect(startResolved(context, unseeded)),
    );
  });

  it("refuses options resolved for a context of other sizes, and a disposed context", async () => {
    const prompt = model.tokenize("The river runs");
    const resolved = resolveGenerateOptions(
      prompt,
      { maxTokens: 2 },
      model.vocabSize,
      context.sequenceContextSize,
    );
    expect(() => startResolved(other, resolved)).toThrow(/resolve them for this context/);
    const spare = await model.createContext({ threads: 1, contextSize: 256 });
    await spare.dispose();
    expect(() => startResolved(spare, resolved)).toThrow(LlamaDisposedError);
  });
});
