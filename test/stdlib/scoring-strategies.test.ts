import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  CBlock,
  type Context,
  type GenerateAction,
  HookRegistry,
  type LogitsTrace,
  type ModelOutputThunk,
  type ResolvedGenerateOptions,
} from "../../src/core/index.js";
import {
  BestOfNStrategy,
  ChatContext,
  exactMatchSimilarity,
  InvalidSampleCountError,
  MajorityVotingStrategy,
  MissingLogitsError,
  meanTokenLogprob,
  rougeLSimilarity,
  SamplingProgress,
  ScoredSamplingResult,
  SimpleContext,
} from "../../src/stdlib/index.js";
import { ScriptedBackend } from "../../src/testing/index.js";
import { contains, recordedHooks, scripted } from "./helpers.js";

function trace(logprobs: number[]): LogitsTrace {
  return {
    kind: "processed",
    source: "test",
    topK: 1,
    vocabSize: null,
    steps: logprobs.map((logprob, index) => ({ token: index, text: "t", logprob, logSumExp: null, top: [] })),
  };
}

/** A scripted backend that reports per-token logprobs, as a backend with the logits capability does. */
class LogprobBackend extends ScriptedBackend {
  readonly #logprobs: number[][];
  #next = 0;

  constructor(responses: string[], logprobs: number[][]) {
    super({ responses, hooks: new HookRegistry(), capabilities: { logits: true, parallelSequences: 8 } });
    this.#logprobs = logprobs;
  }

  protected override async doGenerateFromRaw<T>(
    actions: ReadonlyArray<GenerateAction<T>>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<Array<ModelOutputThunk<T>>> {
    const thunks = await super.doGenerateFromRaw(actions, context, options);
    for (const thunk of thunks) thunk.generation.logits = trace(this.#logprobs[this.#next++]!);
    return thunks;
  }
}

describe("BestOfNStrategy", () => {
  it("draws n samples in one raw batch and keeps the best-scoring one that passes", async () => {
    const backend = scripted([
      "ok short",
      "ok a much longer answer",
      "a very very long failing answer",
      "ok mid one",
    ]);
    const { hooks, events } = recordedHooks();
    const strategy = new BestOfNStrategy({ n: 4, hooks, score: (thunk) => thunk.value.length });
    const result = await strategy.sample(new CBlock("q"), new SimpleContext(), backend, [contains("ok")]);
    expect(backend.calls.map((call) => call.kind)).toEqual(["raw", "raw", "raw", "raw"]);
    expect(result.success).toBe(true);
    expect(result.result.value).toBe("ok a much longer answer");
    expect(result).toBeInstanceOf(ScoredSamplingResult);
    // The failing sample is not a candidate, so it carries no score.
    expect((result as ScoredSamplingResult).scores).toEqual([8, 23, null, 10]);
    expect(events).toEqual([
      "start",
      "iteration 0 pass",
      "iteration 1 pass",
      "iteration 2 fail",
      "iteration 3 pass",
      "end success",
    ]);
  });

  it("falls back to the best overall, as a failure, when none passes; ties go to the earliest", async () => {
    const backend = scripted(["aa", "bbb", "ccc"]);
    const result = await new BestOfNStrategy({ n: 3, score: (thunk) => thunk.value.length }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [contains("zzz")],
    );
    expect(result.success).toBe(false);
    expect(result.resultIndex).toBe(1);
  });

  it("repeats rounds of n while nothing passes, within the loop budget", async () => {
    const backend = scripted(["a", "b", "c ok", "d ok", "unused"]);
    const result = await new BestOfNStrategy({ n: 2, loopBudget: 3, score: () => 0 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [contains("ok")],
    );
    expect(backend.calls).toHaveLength(4);
    expect(result.success).toBe(true);
    expect(result.result.value).toBe("c ok");
  });

  it("scores by mean token log-probability by default, asking the backend for top-1 logprobs", async () => {
    const backend = new LogprobBackend(
      ["first", "second", "third"],
      [
        [-2, -2],
        [-0.5, -1.5, -0.1],
        [-1, -1],
      ],
    );
    const result = await new BestOfNStrategy({ n: 3 }).sample(new CBlock("q"), new SimpleContext(), backend);
    expect(backend.calls[0]!.options.modelOptions).toEqual({ logits: 1 });
    expect(result.result.value).toBe("second");
    expect((result as ScoredSamplingResult).scores[1]).toBeCloseTo(-0.7);
  });

  it("keeps a caller's own logits request", async () => {
    const backend = new LogprobBackend(["a", "b"], [[-1], [-2]]);
    await new BestOfNStrategy({ n: 2 }).sample(new CBlock("q"), new SimpleContext(), backend, null, {
      modelOptions: { logits: "full", temperature: 0.8 },
    });
    expect(backend.calls[0]!.options.modelOptions).toEqual({ logits: "full", temperature: 0.8 });
  });

  it("refuses to score by logprob on a backend without logits, before generating", async () => {
    const backend = scripted(["a", "b"]);
    const error = await new BestOfNStrategy({ n: 2 })
      .sample(new CBlock("q"), new SimpleContext(), backend)
      .catch((caught: unknown) => caught);
    expect(MissingLogitsError.isInstance(error)).toBe(true);
    expect((error as MissingLogitsError).sampleIndex).toBeNull();
    expect((error as Error).message).toContain("reports no logits capability");
    expect(backend.calls).toHaveLength(0);
  });

  it("reports a sample that came back without logprobs", async () => {
    const backend = scripted(["a", "b"], { capabilities: { logits: true } });
    await expect(
      new BestOfNStrategy({ n: 2 }).sample(new CBlock("q"), new SimpleContext(), backend),
    ).rejects.toBeInstanceOf(MissingLogitsError);
  });

  it("rejects sample counts below 1", () => {
    expect(() => new BestOfNStrategy({ n: 0 })).toThrow(InvalidSampleCountError);
    expect(() => new MajorityVotingStrategy({ n: 2.5 })).toThrow(InvalidSampleCountError);
  });

  it("never lets a NaN score win", async () => {
    const backend = scripted(["a", "b"]);
    const result = await new BestOfNStrategy({
      n: 2,
      score: (thunk) => (thunk.value === "a" ? Number.NaN : -5),
    }).sample(new CBlock("q"), new SimpleContext(), backend);
    expect(result.result.value).toBe("b");
  });
});

describe("meanTokenLogprob", () => {
  it("averages the chosen tokens' logprobs, preferring the processed trace", async () => {
    const backend = scripted(["x"]);
    const { thunk } = await backend.generateFromContext(new CBlock("q"), new SimpleContext());
    await thunk.avalue();
    expect(meanTokenLogprob(thunk)).toBeNull();
    thunk.generation.rawLogits = trace([-10]);
    expect(meanTokenLogprob(thunk)).toBe(-10);
    thunk.generation.logits = trace([-1, -3]);
    expect(meanTokenLogprob(thunk)).toBe(-2);
    thunk.generation.logits = trace([]);
    expect(meanTokenLogprob(thunk)).toBe(Number.NEGATIVE_INFINITY);
    thunk.generation.logits = {
      ...trace([]),
      steps: [
        {
          token: 7,
          text: "t",
          logprob: null,
          logSumExp: 2,
          top: [{ token: 7, text: "t", logit: 1, logprob: -9 }],
        },
      ],
    };
    expect(meanTokenLogprob(thunk)).toBe(-1);
  });
});

describe("MajorityVotingStrategy", () => {
  it("chooses the answer most similar to the others (exact match: the majority)", async () => {
    const backend = scripted(["5", "4", " 4 ", "four", "4"]);
    const result = await new MajorityVotingStrategy({ n: 5 }).sample(
      new CBlock("2+2?"),
      new SimpleContext(),
      backend,
    );
    expect(result.resultIndex).toBe(1);
    expect((result as ScoredSamplingResult).scores).toEqual([0, 2, 2, 0, 2]);
  });

  it("breaks ties by the earliest sample, deterministically", async () => {
    const backend = scripted(["b", "a", "a", "b"]);
    const result = await new MajorityVotingStrategy({ n: 4 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
    );
    expect(result.resultIndex).toBe(0);
  });

  it("votes only among passing samples when some pass, with a pluggable extract and similarity", async () => {
    const backend = scripted(["answer: 7", "answer: 9 ok", "answer: 7", "answer: 8 ok"]);
    const result = await new MajorityVotingStrategy({
      n: 4,
      extract: (text) => text.replace(/[^0-9]/g, ""),
      similarity: (first, second) => 1 / (1 + Math.abs(Number(first) - Number(second))),
    }).sample(new CBlock("q"), new ChatContext(), backend, [contains("ok")]);
    expect(result.success).toBe(true);
    expect(result.resultIndex).toBe(1);
  });

  it("ships exact-match and ROUGE-L similarities", () => {
    expect(exactMatchSimilarity(" The  Answer", "the answer ")).toBe(1);
    expect(exactMatchSimilarity("a", "b")).toBe(0);
    expect(rougeLSimilarity("the cat sat on the mat", "the cat sat on the mat")).toBe(1);
    expect(rougeLSimilarity("the cat sat", "a dog ran")).toBe(0);
    expect(rougeLSimilarity("the cat sat on the mat", "the cat lay on the mat")).toBeCloseTo(5 / 6);
    // As rouge_score: no tokens scores 0 (test/strategies/mbrd-rouge-l.test.ts has its reference values).
    expect(rougeLSimilarity("", "")).toBe(0);
  });
});

describe("SamplingProgress", () => {
  it("writes a bar to the given stream and stops cleanly; disabled it writes nothing", () => {
    const stream = new PassThrough();
    let written = "";
    stream.on("data", (chunk: Buffer) => {
      written += chunk.toString();
    });
    const progress = SamplingProgress.start(true, 2, "TestStrategy", stream);
    progress.advance(true);
    progress.advance(false);
    progress.stop();
    expect(written).toContain("TestStrategy");
    expect(written).toContain("2/2 samples");
    const silent = SamplingProgress.start(false, 2, "Silent", stream);
    silent.advance(true);
    silent.stop();
    expect(written).not.toContain("Silent");
  });
});
