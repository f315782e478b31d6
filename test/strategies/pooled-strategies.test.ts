// Pooled strategies on the scripted backend (control flow only): a sample that fails a streaming check is
// cancelled and a fresh one takes its place, live samples are capped, the budget is respected, and the
// report says where the tokens went.
import { describe, expect, it } from "vitest";
import { CBlock, type ModelOutputThunk, PartialValidationResult } from "../../src/core/index.js";
import {
  BestOfNStrategy,
  MajorityVotingStrategy,
  type MonotoneSampleScore,
  NonMonotoneScoreError,
  RejectionSamplingStrategy,
  SamplingAbortedError,
  ScoredSamplingResult,
  SimpleContext,
  StandardRequirement,
  sumTokenLogprob,
  wordChunking,
} from "../../src/stdlib/index.js";
import { scripted } from "../stdlib/helpers.js";

/** Fails (while streaming and at the end) on the word `word`. */
function never(word: string): StandardRequirement {
  return new StandardRequirement(`never says ${word}`, {
    validate: (context) =>
      !(context.lastOutput()?.value ?? "").split(/\s+/).includes(word) || [false, `says ${word}`],
    streamChunking: wordChunking,
    streamValidate: ({ chunk }) => new PartialValidationResult(chunk === word ? "fail" : "unknown"),
  });
}

const long = (first: string) => `${first} ${Array.from({ length: 30 }, (_, index) => `w${index}`).join(" ")}`;

function backendOf(answers: (index: number) => string, parallelSequences = 4, delayMs = 1) {
  return scripted((_call, index) => answers(index), {
    capabilities: { parallelSequences },
    chunkDelayMs: delayMs,
    queueCapacity: 1,
  });
}

describe("pooled rejection sampling", () => {
  it("cancels each sample at its first streaming fail, starts a fresh one, and stops at the first pass", async () => {
    const backend = backendOf((index) => (index < 2 ? long("bad") : long("good")));
    const result = await new RejectionSamplingStrategy({ loopBudget: 5 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result.success).toBe(true);
    expect(result.result.value).toBe(long("good"));
    expect(result.sampleGenerations.map((thunk) => thunk.cancelled)).toEqual([true, true, false]);
    // The cancelled samples kept only the text before the cancel: a few words, not 31.
    for (const thunk of result.sampleGenerations.slice(0, 2)) {
      expect(thunk.value.split(" ").length).toBeLessThan(6);
    }
    expect(result.sampleValidations[0]![0]![1].reason).toMatch(/^cancelled while streaming/);
    expect(result.report).toMatchObject({
      attempts: 3,
      completed: 1,
      cancelledByValidation: 2,
      attemptsUntilPass: 3,
      concurrency: 1,
      peakLive: 1,
    });
    // The scripted backend reports no usage for a cancelled sample: token counts are checked on the real one.
    expect(result.report!.tokensGenerated).toBe(31);
  });

  it("without streaming validation the same samples run to their end and fail the final check", async () => {
    const backend = backendOf((index) => (index < 2 ? long("bad") : long("good")));
    const result = await new RejectionSamplingStrategy({ loopBudget: 5, streamValidation: false }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result.success).toBe(true);
    expect(result.report).toMatchObject({
      attempts: 3,
      completed: 3,
      cancelledByValidation: 0,
      tokensDiscarded: 0,
    });
    expect(result.report!.tokensGenerated).toBe(3 * 31);
  });

  it("keeps at most concurrencyBudget samples live and stops at loopBudget × concurrencyBudget", async () => {
    const backend = backendOf(() => long("bad"));
    const result = await new RejectionSamplingStrategy({ loopBudget: 3, concurrencyBudget: 2 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result.success).toBe(false);
    expect(backend.calls).toHaveLength(6);
    expect(result.report).toMatchObject({ attempts: 6, attemptLimit: 6, concurrency: 2, peakLive: 2 });
    expect(result.report!.concurrencyCap).toBeNull();
  });

  it("gives attempt k the seed + k, so paired runs draw the same samples in the same order", async () => {
    const backend = backendOf(() => long("bad"));
    const result = await new RejectionSamplingStrategy({ loopBudget: 3 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
      { modelOptions: { seed: 40 } },
    );
    expect(backend.calls.map((call) => call.options.modelOptions.seed)).toEqual([40, 41, 42]);
    expect(result.report!.sampleTimings).toHaveLength(3);
    for (const timing of result.report!.sampleTimings) {
      expect(timing.firstTokenMs).toBeGreaterThanOrEqual(0);
      expect(timing.lastTokenMs!).toBeGreaterThanOrEqual(timing.firstTokenMs!);
    }
  });

  it("caps a concurrencyBudget above the backend's parallel sequences and reports the cap", async () => {
    const backend = backendOf(() => long("bad"), 2);
    const result = await new RejectionSamplingStrategy({ loopBudget: 1, concurrencyBudget: 5 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result.report).toMatchObject({
      requestedConcurrency: 5,
      concurrency: 2,
      peakLive: 2,
      attempts: 5,
    });
    expect(result.report!.concurrencyCap).toBe(
      "concurrencyBudget 5 capped at the backend's 2 parallel sequences",
    );
  });

  it("cancels the samples still live once one passes (abandoned, left out of the result)", async () => {
    const backend = scripted(
      (_call, index) =>
        index === 0 ? { text: "good answer", delayMs: 1 } : { text: long("fine"), delayMs: 20 },
      { capabilities: { parallelSequences: 3 }, queueCapacity: 1 },
    );
    const result = await new RejectionSamplingStrategy({ concurrencyBudget: 3 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result.success).toBe(true);
    expect(result.sampleGenerations).toHaveLength(1);
    expect(result.report).toMatchObject({ attempts: 3, completed: 1, abandoned: 2 });
  });
});

describe("a streaming check that throws", () => {
  it("leaves that sample to its final check instead of rejecting the whole pooled run", async () => {
    const throwing = new StandardRequirement("throws while streaming", {
      validate: (context) => (context.lastOutput()?.value ?? "").startsWith("good") || [false, "not good"],
      streamValidate: () => {
        throw new Error("boom");
      },
    });
    const backend = backendOf((index) => (index === 0 ? long("bad") : long("good")), 2);
    const result = await new RejectionSamplingStrategy({ loopBudget: 2, concurrencyBudget: 1 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [throwing],
    );
    expect(result.success).toBe(true);
    expect(result.result.value).toBe(long("good"));
    // Both samples ran to their end: the throw cancelled nothing, and the final check rejected the first.
    expect(result.sampleGenerations.map((thunk) => thunk.cancelled)).toEqual([false, false]);
    expect(result.sampleValidations[0]![0]![1].reason).toBe("not good");
    expect(result.sampleGenerations[0]!.meta.streamFailure).toMatchObject({
      reason: expect.stringMatching(/streamValidate threw: boom/),
    });
  });
});

describe("pooled scoring strategies", () => {
  it("best-of-n replaces a cancelled sample until n have completed, within loopBudget × n", async () => {
    const answers = ["bad one", "good a", "bad two", "good bb", "good ccc", "good dddd"];
    const backend = backendOf((index) => answers[index]!, 2);
    const lengthScore = (thunk: ModelOutputThunk<unknown>) => thunk.value!.length;
    const result = await new BestOfNStrategy({ n: 3, loopBudget: 2, score: lengthScore }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result).toBeInstanceOf(ScoredSamplingResult);
    expect(result.success).toBe(true);
    expect(result.result.value).toBe("good ccc");
    expect(result.report).toMatchObject({
      attempts: 5,
      completed: 3,
      cancelledByValidation: 2,
      concurrency: 2,
    });
  });

  it("pruning losers needs a monotone score: the default mean is refused", () => {
    expect(() => new BestOfNStrategy({ pruneLosers: true })).toThrow(NonMonotoneScoreError);
    expect(() => new BestOfNStrategy({ pruneLosers: true, score: sumTokenLogprob })).not.toThrow();
  });

  it("best-of-n with a monotone score cancels samples that can no longer overtake the best passing one", async () => {
    // Score: minus the length, so it only falls as text arrives. The short answer finishes first; the long
    // ones fall below it after a few words and are cancelled as losers.
    const shorter: MonotoneSampleScore = Object.assign(
      (thunk: ModelOutputThunk<unknown>) => -(thunk.value ?? "").length,
      {
        monotone: "non-increasing" as const,
        needsLogits: false,
      },
    );
    const backend = scripted(
      (_call, index) => (index === 0 ? { text: "ok", delayMs: 0 } : { text: long("fine"), delayMs: 5 }),
      { capabilities: { parallelSequences: 3 }, queueCapacity: 1 },
    );
    const result = await new BestOfNStrategy({ n: 3, score: shorter, pruneLosers: true }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result.result.value).toBe("ok");
    expect(result.report).toMatchObject({ attempts: 3, completed: 1, cancelledAsLosers: 2 });
  });

  it("majority voting votes among completed samples; a cancelled one is replaced", async () => {
    const answers = ["7", "bad 7", "8", "7"];
    const backend = backendOf((index) => answers[index]!, 4);
    const result = await new MajorityVotingStrategy({ n: 3, loopBudget: 2 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [never("bad")],
    );
    expect(result.success).toBe(true);
    expect(result.result.value).toBe("7");
    expect(result.report).toMatchObject({ attempts: 4, completed: 3, cancelledByValidation: 1 });
  });
});

describe("pooled runs do not depend on timing", () => {
  it("majority voting orders samples by start, so a tie goes to the first started, as in round runs", async () => {
    // A 2-2 tie. The long answers start first (attempts 0 and 2) but finish last: ordered by completion, the
    // earliest sample would be a short one. Mellea picks the earliest drawn sample, index 0.
    const longAnswer = "x y z w v u t s r q p";
    const answers = [longAnswer, "short", longAnswer, "short"];
    const pooled = await new MajorityVotingStrategy({ n: 4, pooled: true }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backendOf((index) => answers[index]!, 4, 2),
      [],
    );
    const round = await new MajorityVotingStrategy({ n: 4, pooled: false }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backendOf((index) => answers[index]!, 4, 2),
      [],
    );
    expect(pooled.sampleGenerations.map((thunk) => thunk.value)).toEqual(answers);
    expect(pooled.result.value).toBe(longAnswer);
    expect(pooled.resultIndex).toBe(0);
    expect(round.result.value).toBe(longAnswer);
  });

  it("an aborted run's error counts the samples cancelled while streaming apart from those that ran to their end", async () => {
    const controller = new AbortController();
    const backend = backendOf(() => long("bad"), 4, 1);
    setTimeout(() => controller.abort(new Error("stop")), 30);
    const error = await new RejectionSamplingStrategy({ loopBudget: 100_000, concurrencyBudget: 4 })
      .sample(new CBlock("q"), new SimpleContext(), backend, [never("bad")], { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(SamplingAbortedError.isInstance(error)).toBe(true);
    const aborted = error as SamplingAbortedError;
    const recorded = aborted.partialResult.sampleGenerations;
    expect(recorded.length).toBeGreaterThan(0);
    expect(recorded.every((thunk) => thunk.cancelled)).toBe(true);
    expect(aborted.message).not.toMatch(/completed sample/);
    expect(aborted.message).toContain(
      `after ${recorded.length} recorded sample(s): 0 ran to their end, ${recorded.length} cancelled while streaming`,
    );
  });
});
