// The README example of "Requirements, strategies, functional API", run on the tiny model.
import { expect, it } from "vitest";
import { z } from "zod";
import {
  BestOfNStrategy,
  generative,
  RepairTemplateStrategy,
  req,
  ScoredSamplingResult,
  simpleValidate,
  startSession,
} from "../../src/index.js";

it("runs the README example", async () => {
  await using session = await startSession({
    backend: "llamacpp",
    model: "tiny",
    backendOptions: { threads: 1 },
  });
  const short = req(
    "Use at most 12 words.",
    simpleValidate((text) => text.split(/\s+/).length <= 12),
  );
  const { output, samplingResult } = await session.instruct("Describe {{thing}}.", {
    userVariables: { thing: "the sea" },
    requirements: [short, "Mention a colour."],
    strategy: new RepairTemplateStrategy({ loopBudget: 3 }),
    modelOptions: { maxNewTokens: 32 },
  });
  expect(typeof output.value).toBe("string");
  expect(samplingResult!.sampleGenerations.length).toBeGreaterThanOrEqual(1);
  expect(samplingResult!.sampleGenerations.length).toBeLessThanOrEqual(3);
  expect(samplingResult!.resultValidations.map(([requirement]) => requirement.description)).toEqual([
    "Use at most 12 words.",
    "Mention a colour.",
  ]);

  const best = await session.act("Name a fruit.", {
    strategy: new BestOfNStrategy({ n: 8 }),
    modelOptions: { maxNewTokens: 8 },
  });
  expect(best.samplingResult).toBeInstanceOf(ScoredSamplingResult);
  expect(best.samplingResult!.sampleGenerations).toHaveLength(8);

  const classify = generative({
    name: "classify",
    description: "Classify the sentiment of a review.",
    input: z.object({ review: z.string() }),
    output: z.enum(["positive", "negative"]),
  });
  const label: "positive" | "negative" = await classify({ review: "Loved it" }, session);
  expect(["positive", "negative"]).toContain(label);
});
