// "Cut by": with cutBy on, each raw top-k candidate carries the sampler stage that removed it before the
// selector drew (issue 18). One test per stage forces the removal of a known token on the generated tiny
// model (real addon, one thread) and checks its label.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nativeSamplerStages } from "../../src/backends/llamacpp/addon-types.js";
import { IncompatibleOptionsError } from "../../src/backends/llamacpp/errors/incompatible-options-error.js";
import type { LlamaContext } from "../../src/backends/llamacpp/llama-context.js";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { LlamaCppModelOptions } from "../../src/backends/llamacpp/llama-cpp-model-options.js";
import type { LlamaModel } from "../../src/backends/llamacpp/llama-model.js";
import type { GenerateTokensOptions } from "../../src/backends/llamacpp/native-generate-options.js";
import type { TokenEvent } from "../../src/backends/llamacpp/token-stream.js";
import { CBlock } from "../../src/core/cblock.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { loadTinyModel } from "./tiny-model.js";

type Label = (typeof nativeSamplerStages)[number];

describe("cut-by recording on the native decode thread", () => {
  let model: LlamaModel;
  let context: LlamaContext;
  let prompt: Int32Array;
  beforeAll(async () => {
    model = await loadTinyModel();
    context = await model.createContext({ contextSize: 512, threads: 1 });
    prompt = model.tokenize("The quick brown fox jumps over the lazy dog");
  });
  afterAll(() => model.dispose());

  async function first(options: GenerateTokensOptions, tokens = prompt): Promise<TokenEvent> {
    for await (const event of context.generate(tokens, { maxTokens: 1, seed: 7, ...options })) return event;
    throw new Error("no event");
  }

  /** The raw top-k ids of the first token and each one's label. */
  async function labelled(
    options: GenerateTokensOptions,
    tokens = prompt,
  ): Promise<{ ids: number[]; labels: Label[]; token: number }> {
    const event = await first({ rawLogits: 8, cutBy: true, ...options }, tokens);
    const raw = event.rawLogits!;
    expect(raw.cutBy).toBeInstanceOf(Uint8Array);
    expect(raw.cutBy!.length).toBe(8);
    return {
      ids: [...raw.topIds!],
      labels: [...raw.cutBy!].map((code) => nativeSamplerStages[code]!),
      token: event.token,
    };
  }

  it("is off by default: no cutBy column", async () => {
    const event = await first({ temperature: 1, topK: 2, rawLogits: 8 });
    expect(event.rawLogits!.topIds!.length).toBe(8);
    expect(event.rawLogits!.cutBy).toBeUndefined();
  });

  it("labels the candidates that top-k removed", async () => {
    const { labels } = await labelled({ temperature: 1, topK: 3 });
    expect(labels).toEqual([null, null, null, "top-k", "top-k", "top-k", "top-k", "top-k"]);
  });

  it("labels the candidates that top-p removed", async () => {
    // p near 0 keeps only the most likely token (llama.cpp keeps at least one).
    const { labels } = await labelled({ temperature: 1, topP: 1e-6 });
    expect(labels).toEqual([null, "top-p", "top-p", "top-p", "top-p", "top-p", "top-p", "top-p"]);
  });

  it("labels the candidates that min-p removed", async () => {
    // min-p 1 keeps only tokens as likely as the best one.
    const { labels } = await labelled({ temperature: 1, minP: 1 });
    expect(labels).toEqual([null, "min-p", "min-p", "min-p", "min-p", "min-p", "min-p", "min-p"]);
  });

  it("labels the candidates that typical-p removed", async () => {
    // p near 0 keeps the one token whose surprise is closest to the entropy: the one that is drawn.
    const { ids, labels, token } = await labelled({ temperature: 1, typicalP: 1e-6 });
    expect(labels).toEqual(ids.map((id) => (id === token ? null : "typical-p")));
    expect(labels.filter((label) => label === "typical-p").length).toBeGreaterThanOrEqual(7);
  });

  it("labels the candidates that a grammar removed", async () => {
    const { ids, labels, token } = await labelled({ temperature: 1, grammar: 'root ::= "x"' });
    expect(model.detokenize([token])).toBe("x");
    expect(ids).not.toContain(token); // the model's favourites are all something else
    expect(labels).toEqual(ids.map(() => "grammar"));
  });

  it("labels a banned token and a token that a negative bias pushed out of the top-k with the logit bias", async () => {
    const { ids } = await labelled({ temperature: 1 });
    const banned = await labelled({
      temperature: 1,
      logitBias: new Map([[ids[0]!, Number.NEGATIVE_INFINITY]]),
    });
    expect(banned.labels).toEqual(["logit-bias" as Label, null, null, null, null, null, null, null]);
    // A finite bias removes nothing by itself: top-k cuts the token, and without the bias it would have stayed.
    const pushed = await labelled({ temperature: 1, topK: 4, logitBias: new Map([[ids[1]!, -1000]]) });
    // (the fifth raw candidate moves up into the top 4 in its place)
    expect(pushed.labels).toEqual([null, "logit-bias", null, null, null, "top-k", "top-k", "top-k"]);
  });

  it("labels a token that the presence penalty pushed out of the top-k with the penalties", async () => {
    // A prompt that holds one of its own next-token favourites: the penalty applies to prompt tokens.
    const { ids } = await labelled({ temperature: 1 });
    let found: { tokens: Int32Array; rank: number; token: number } | undefined;
    for (const candidate of ids) {
      const tokens = Int32Array.from([...prompt, candidate]);
      const next = await labelled({ temperature: 1 }, tokens);
      const rank = next.ids.findIndex((id) => tokens.includes(id));
      if (rank >= 0) {
        found = { tokens, rank, token: next.ids[rank]! };
        break;
      }
    }
    if (found === undefined) throw new Error("no prompt found whose raw top 8 holds a prompt token");
    const { ids: penalizedIds, labels } = await labelled(
      { temperature: 1, topK: 8, presencePenalty: 1e6, penaltyLastN: -1 },
      found.tokens,
    );
    expect(penalizedIds[found.rank]).toBe(found.token);
    expect(labels[found.rank]).toBe("penalties");
    labels.forEach((label, index) => {
      if (!found.tokens.includes(penalizedIds[index]!)) expect(label).toBeNull();
    });
  });

  it("labels nothing when no sampler removes anything (the dense paths)", async () => {
    expect((await labelled({ temperature: 0.7 })).labels).toEqual(Array(8).fill(null));
    expect((await labelled({ temperature: 0 })).labels).toEqual(Array(8).fill(null));
  });

  it("refuses cutBy without a raw top-k of at most 255, naming the options", async () => {
    expect(() => context.generate(prompt, { cutBy: true })).toThrow(IncompatibleOptionsError);
    expect(() => context.generate(prompt, { cutBy: true, rawLogits: "full" })).toThrow(/cutBy.*rawLogits/);
    expect(() => context.generate(prompt, { cutBy: true, rawLogits: 256 })).toThrow(
      /rawLogits to a top k between 1 and 255/,
    );
  });
});

describe("cut-by on the llama.cpp backend's raw logits trace", () => {
  let backend: LlamaCppBackend;
  beforeAll(async () => {
    backend = await LlamaCppBackend.create({ threads: 1, sequences: 1, contextSize: 256 });
  });
  afterAll(async () => backend[Symbol.asyncDispose]());

  it("fills removedBy aligned with each raw step's top candidates when the cutBy model option is on", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Once upon a time"), new ChatContext(), {
      modelOptions: {
        maxNewTokens: 3,
        temperature: 1,
        seed: 3,
        topK: 2,
        rawLogits: 5,
        cutBy: true,
      } as LlamaCppModelOptions,
    });
    await thunk.avalue();
    const steps = thunk.generation.rawLogits!.steps;
    expect(steps.length).toBe(3);
    for (const step of steps) {
      expect(step.removedBy).toEqual([null, null, "top-k", "top-k", "top-k"]);
    }
  });

  it("leaves removedBy out when cutBy is off", async () => {
    const { thunk } = await backend.generateFromContext(new CBlock("Once upon a time"), new ChatContext(), {
      modelOptions: { maxNewTokens: 2, temperature: 1, seed: 3, topK: 2, rawLogits: 5 },
    });
    await thunk.avalue();
    for (const step of thunk.generation.rawLogits!.steps) expect(step.removedBy).toBeUndefined();
  });
});
