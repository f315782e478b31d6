// End to end on the generated tiny model (random weights: its text is noise, so requirements are checked in
// code, and structured output relies on the backend's grammar). One llama.cpp thread, 8 parallel sequences.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { CBlock, HookRegistry } from "../../src/core/index.js";
import {
  act,
  BestOfNStrategy,
  ChatContext,
  generative,
  Instruction,
  MajorityVotingStrategy,
  MultiTurnStrategy,
  meanTokenLogprob,
  RejectionSamplingStrategy,
  RepairTemplateStrategy,
  readJudgeAnswer,
  req,
  SamplingAbortedError,
  ScoredSamplingResult,
  SimpleContext,
  simpleValidate,
  startSession,
} from "../../src/stdlib/index.js";

let backend: LlamaCppBackend;
const short = { maxNewTokens: 8 };
const never = req(
  "contains the word zebra-unicorn",
  simpleValidate((text) => text.includes("zebra-unicorn")),
);
const anything = req(
  "is any text",
  simpleValidate(() => true),
);

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 8 });
});

afterAll(async () => {
  await backend?.dispose();
});

describe("strategies on the tiny model", () => {
  it("rejection sampling exhausts its budget on an impossible requirement and the backend stays usable", async () => {
    const result = await new RejectionSamplingStrategy({ loopBudget: 3 }).sample(
      new CBlock("Name an animal."),
      new SimpleContext(),
      backend,
      [never],
      { modelOptions: short },
    );
    expect(result.success).toBe(false);
    expect(result.sampleGenerations).toHaveLength(3);
    expect(result.resultIndex).toBe(0);
    for (const sample of result.sampleGenerations) {
      // Sampled at random, a generation may draw an end-of-generation token (CI saw one at the 7th of 8):
      // it then stopped there, that token counted; otherwise the limit ended it at exactly 8. Anything else
      // (another reason, or more tokens than the limit) is a failure.
      const tokens = sample.generation.usage?.completionTokens;
      const [reason] = sample.generation.finishReasons ?? [];
      expect(reason === "length" ? tokens === 8 : reason === "stop" && tokens! >= 1 && tokens! <= 8).toBe(
        true,
      );
    }
    const passing = await new RejectionSamplingStrategy().sample(
      new CBlock("Hi"),
      new SimpleContext(),
      backend,
      [anything],
      {
        modelOptions: short,
      },
    );
    expect(passing.success).toBe(true);
  });

  it("repair template resends the instruction with the failed requirement in the prompt", async () => {
    const instruction = new Instruction({ description: "Describe a zebra.", requirements: [never] });
    const result = await new RepairTemplateStrategy({ loopBudget: 2 }).sample(
      instruction,
      new SimpleContext(),
      backend,
      [never],
      {
        modelOptions: short,
      },
    );
    expect(result.success).toBe(false);
    expect(result.sampleGenerations[0]!.generateLog?.prompt).not.toContain("failed before");
    const repairedPrompt = result.sampleGenerations[1]!.generateLog?.prompt ?? "";
    expect(repairedPrompt).toContain("The following requirements failed before:");
    expect(repairedPrompt).toContain("* contains the word zebra-unicorn");
  });

  it("multi-turn keeps the failed answer in the chat and asks again", async () => {
    const result = await new MultiTurnStrategy({ loopBudget: 2 }).sample(
      new CBlock("Tell a joke."),
      new ChatContext(),
      backend,
      [never],
      {
        modelOptions: short,
      },
    );
    expect(result.resultIndex).toBe(-1);
    expect(result.result).toBe(result.sampleGenerations[1]);
    const secondPrompt = result.sampleGenerations[1]!.generateLog?.prompt ?? "";
    expect(secondPrompt).toContain(result.sampleGenerations[0]!.value.trim());
    expect(secondPrompt).toContain("The following requirements have not been met:");
  });

  it("best-of-n draws a batch and keeps the sample with the highest mean token logprob", async () => {
    const result = await new BestOfNStrategy({ n: 4 }).sample(
      new CBlock("Write a word."),
      new SimpleContext(),
      backend,
      null,
      {
        modelOptions: short,
      },
    );
    expect(result).toBeInstanceOf(ScoredSamplingResult);
    const scores = (result as ScoredSamplingResult).scores as number[];
    expect(scores).toHaveLength(4);
    for (const [index, sample] of result.sampleGenerations.entries()) {
      expect(sample.generation.logits?.steps).toHaveLength(8);
      expect(scores[index]).toBeCloseTo(meanTokenLogprob(sample)!);
      expect(Number.isFinite(scores[index])).toBe(true);
    }
    expect(scores[result.resultIndex]).toBe(Math.max(...scores));
  });

  it("majority voting over greedy samples: all agree, the earliest wins", async () => {
    const result = await new MajorityVotingStrategy({ n: 3 }).sample(
      new CBlock("2+2?"),
      new SimpleContext(),
      backend,
      null,
      {
        modelOptions: { ...short, temperature: 0 },
      },
    );
    const values = result.sampleGenerations.map((sample) => sample.value);
    expect(new Set(values).size).toBe(1);
    expect((result as ScoredSamplingResult).scores).toEqual([2, 2, 2]);
    expect(result.resultIndex).toBe(0);
  });

  it("aborting mid-run ends with the samples so far, and the backend keeps working", async () => {
    const controller = new AbortController();
    const hooks = new HookRegistry();
    hooks.on("samplingIteration", () => {
      controller.abort();
    });
    const strategy = new RejectionSamplingStrategy({ loopBudget: 5, hooks });
    const error = await strategy
      .sample(new CBlock("q"), new SimpleContext(), backend, [never], {
        modelOptions: short,
        signal: controller.signal,
      })
      .catch((caught: unknown) => caught);
    expect(SamplingAbortedError.isInstance(error)).toBe(true);
    expect((error as SamplingAbortedError).samplesDrawn).toBe(1);
    const after = await act("still there?", new SimpleContext(), backend, { modelOptions: short });
    expect(after.output.generation.usage?.completionTokens).toBe(8);
  });

  it("an LLM-as-judge requirement reads the judge's answer with the documented rule", async () => {
    const context = new SimpleContext()
      .add(new CBlock("q"))
      .add((await act("q", new SimpleContext(), backend, { modelOptions: short })).output);
    const result = await req("The answer is polite.").validate(backend, context, { modelOptions: short });
    expect(result.thunk).not.toBeNull();
    expect(result.result).toBe(readJudgeAnswer(result.thunk!.value ?? "").passed);
  });
});

describe("structured output on the tiny model", () => {
  it("act with a zod format returns a parsed value that matches the schema", async () => {
    // Bounded, so the grammar ends the string within the token budget even on a noise model.
    const format = z.object({
      name: z.string().max(8),
      count: z.number().int().min(0).max(99),
      ok: z.boolean(),
    });
    const { output } = await act("Give a name and a count as JSON.", new SimpleContext(), backend, {
      format,
      modelOptions: { maxNewTokens: 64, temperature: 0 },
    });
    expect(format.parse(output.parsedRepr)).toEqual(output.parsedRepr);
    expect(output.error).toBeNull();
  });

  it("a generative function returns a typed result constrained by the grammar", async () => {
    const classify = generative({
      name: "classify",
      description: "Classify a review.",
      input: z.object({ review: z.string() }),
      output: z.enum(["positive", "negative"]),
      modelOptions: { maxNewTokens: 32 },
    });
    const label = await classify({ review: "Great" }, { backend });
    expect(["positive", "negative"]).toContain(label);
  });

  it("a named llamacpp session starts, generates and closes its own backend", async () => {
    const session = await startSession({
      backend: "llamacpp",
      model: "tiny",
      backendOptions: { threads: 1 },
    });
    const { output } = await session.instruct("Hi", { modelOptions: short });
    expect(output.generation.provider).toBe("llama.cpp");
    await session[Symbol.asyncDispose]();
    await expect(session.backend.generateFromContext(new CBlock("x"), new SimpleContext())).rejects.toThrow();
  });
});
