// BudgetForcingSamplingStrategy: control flow on the scripted backend (passes, budgets, prompts), and token
// budgets on the tiny model with the think markup forced by a grammar (no thinking model exists here).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import type { LlamaCppModelOptions } from "../../src/backends/llamacpp/llama-cpp-model-options.js";
import { CBlock } from "../../src/core/index.js";
import {
  BudgetForcingSamplingStrategy,
  type BudgetForcingUsage,
  SimpleContext,
  thinkBudgetForcing,
} from "../../src/stdlib/index.js";
import type { ScriptedCall } from "../../src/testing/index.js";
import { contains, scripted } from "../stdlib/helpers.js";

const promptOf = (call: ScriptedCall) => (call.action as CBlock).value;
const limitOf = (call: ScriptedCall) => call.options.modelOptions.maxNewTokens;

describe("BudgetForcingSamplingStrategy (scripted)", () => {
  it("has Mellea's defaults", () => {
    const strategy = new BudgetForcingSamplingStrategy();
    expect(strategy).toMatchObject({
      thinkMaxTokens: 4096,
      answerMaxTokens: null,
      startThinkToken: "<think>",
      endThinkToken: "</think>",
      beginResponseToken: "",
      thinkWaitSuffix: "",
      // Mellea v0.7's default (budget_forcing.py and budget_forcing_alg.py): no answer suffix.
      answerSuffix: "",
      loopBudget: 1,
    });
  });

  it("reopens an early-closed think block with the wait suffix until the think budget is spent", async () => {
    const backend = scripted([
      "first thought is here</think> early answer", // 6 words = 6 tokens
      "more thinking goes on", // 4 tokens: the budget of 10 is spent
      "42",
    ]);
    const result = await new BudgetForcingSamplingStrategy({
      thinkMaxTokens: 10,
      thinkWaitSuffix: "Wait",
      answerMaxTokens: 5,
      answerSuffix: "\nThe final answer is:",
    }).sample(new CBlock("Q?"), new SimpleContext(), backend, []);
    expect(backend.calls.map(limitOf)).toEqual([10, 4, 5]);
    expect(backend.calls.map(promptOf)).toEqual([
      "Q?<think>",
      "Q?<think>first thought is here Wait",
      "Q?<think>first thought is here Waitmore thinking goes on </think> \nThe final answer is:",
    ]);
    expect(result.result.value).toBe(
      "<think>first thought is here Waitmore thinking goes on </think> \nThe final answer is:42",
    );
    expect(result.result.meta.budgetForcing).toEqual({ thinkPasses: 2, thinkTokens: 10, answerTokens: 1 });
    expect(result.result.generation.usage?.completionTokens).toBe(11);
  });

  it("without a wait suffix the think budget is only a cap: one think pass, then the answer", async () => {
    const backend = scripted(["short</think>", "7"]);
    const result = await new BudgetForcingSamplingStrategy({ thinkMaxTokens: 50 }).sample(
      new CBlock("Q?"),
      new SimpleContext(),
      backend,
      [],
    );
    expect(backend.calls.map(limitOf)).toEqual([50, undefined]);
    // The default answer suffix is empty: the answer pass continues right after the closed think block.
    expect(backend.calls.map(promptOf)[1]).toBe("Q?<think>short</think>");
    expect(result.result.value).toBe("<think>short</think>7");
  });

  it("stops forcing when a pass brings no real thought, and skips thinking with a zero budget", async () => {
    const backend = scripted(["ok</think>", "1", "2"]);
    const forced = new BudgetForcingSamplingStrategy({ thinkMaxTokens: 100, thinkWaitSuffix: "Wait" });
    await forced.sample(new CBlock("Q?"), new SimpleContext(), backend, []);
    expect(backend.calls).toHaveLength(2);
    const none = new BudgetForcingSamplingStrategy({ thinkMaxTokens: 0 });
    const result = await none.sample(new CBlock("Q?"), new SimpleContext(), backend, []);
    expect(backend.calls.map(promptOf)[2]).toBe("Q?<think> </think>");
    expect((result.result.meta.budgetForcing as BudgetForcingUsage).thinkPasses).toBe(0);
  });

  it("thinkBudgetForcing also defaults to Mellea v0.7's empty answer suffix; null returns the think block alone", async () => {
    const backend = scripted(["thought</think>", "9", "thought"]);
    const answered = await thinkBudgetForcing(backend, new CBlock("Q?"), new SimpleContext());
    expect(backend.calls.map(promptOf)).toEqual(["Q?<think>", "Q?<think>thought</think>"]);
    expect(answered.value).toBe("<think>thought</think>9");
    const thinkOnly = await thinkBudgetForcing(backend, new CBlock("Q?"), new SimpleContext(), {
      answerSuffix: null,
    });
    expect(backend.calls).toHaveLength(3);
    expect(thinkOnly.value).toBe("<think>thought");
  });

  it("validates each budget-forced sample and resamples within loopBudget", async () => {
    const backend = scripted(["hmm</think>", "41", "hmm</think>", "42"]);
    const result = await new BudgetForcingSamplingStrategy({ thinkMaxTokens: 8, loopBudget: 2 }).sample(
      new CBlock("Q?"),
      new SimpleContext(),
      backend,
      [contains("42")],
    );
    expect(result.success).toBe(true);
    expect(result.sampleGenerations).toHaveLength(2);
    expect(result.result.value.endsWith("42")).toBe(true);
  });
});

describe("BudgetForcingSamplingStrategy on the tiny model", () => {
  let backend: LlamaCppBackend;
  beforeAll(async () => {
    backend = await LlamaCppBackend.create({ threads: 1, sequences: 2, contextSize: 512 });
  });
  afterAll(async () => {
    await backend?.dispose();
  });

  it("keeps the think and answer passes within their token budgets, the markup forced by a grammar", async () => {
    const result = await new BudgetForcingSamplingStrategy({
      thinkMaxTokens: 24,
      answerMaxTokens: 6,
      thinkWaitSuffix: "Wait",
      answerSuffix: "\nThe final answer is:",
      // The think passes write letters and close the block; the answer pass writes digits.
      thinkModelOptions: { grammar: 'root ::= [a-z ]{12,60} "</think>"' } as LlamaCppModelOptions,
      answerModelOptions: { grammar: "root ::= [0-9]+" } as LlamaCppModelOptions,
    }).sample(new CBlock("What is 2 + 2?"), new SimpleContext(), backend, [], {
      modelOptions: { temperature: 1, seed: 12 },
    });
    const usage = result.result.meta.budgetForcing as BudgetForcingUsage;
    expect(usage.thinkPasses).toBeGreaterThanOrEqual(1);
    expect(usage.thinkTokens).toBeLessThanOrEqual(24);
    expect(usage.answerTokens).toBeLessThanOrEqual(6);
    expect(usage.answerTokens).toBeGreaterThanOrEqual(1);
    const text = result.result.value;
    expect(text.startsWith("<think>")).toBe(true);
    expect(text).toMatch(/<\/think>.*\nThe final answer is:[0-9]+$/s);
    expect(result.result.generation.usage?.completionTokens).toBe(usage.thinkTokens + usage.answerTokens);
  });
});
