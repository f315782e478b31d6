import { describe, expect, it } from "vitest";
import {
  type Backend,
  CBlock,
  ComputedModelOutputThunk,
  type Context,
  HookRegistry,
  InvalidLoopBudgetError,
  ModelOutputThunk,
  type Requirement,
  type SampleActionType,
  type SampleRun,
  SamplingResult,
  SamplingResultIndexError,
  SamplingStrategy,
  ValidationResult,
} from "../../src/core/index.js";
import { ChatContext } from "../../src/stdlib/contexts/index.js";
import { ScriptedBackend } from "../../src/testing/index.js";

const nonEmpty: Requirement = {
  description: "the answer is not empty",
  async validate(_backend, context) {
    const output = context.lastOutput();
    return new ValidationResult((output?.value ?? "").trim().length > 0, { reason: "checked length" });
  },
};

/** A minimal rejection sampler: generate, validate, retry within the budget. */
class RetryUntilValid extends SamplingStrategy {
  lastRun: SampleRun<unknown> | null = null;

  protected async doSample<T>(
    action: SampleActionType<T>,
    context: Context,
    backend: Backend,
    run: SampleRun<T>,
  ): Promise<SamplingResult<T>> {
    this.lastRun = run as SampleRun<unknown>;
    const generations: Array<ComputedModelOutputThunk<T>> = [];
    const validations: Array<Array<[Requirement, ValidationResult]>> = [];
    const contexts: Context[] = [];
    for (let attempt = 0; attempt < run.loopBudget; attempt += 1) {
      const result = await backend.generateFromContext(action, context);
      await result.thunk.avalue();
      generations.push(ComputedModelOutputThunk.from(result.thunk));
      contexts.push(result.context);
      const checks: Array<[Requirement, ValidationResult]> = [];
      for (const requirement of run.requirements) {
        checks.push([requirement, await requirement.validate(backend, result.context)]);
      }
      validations.push(checks);
      if (checks.every(([, check]) => check.asBool())) {
        return new SamplingResult({
          resultIndex: attempt,
          success: true,
          sampleGenerations: generations,
          sampleValidations: validations,
          sampleActions: generations.map(() => action),
          sampleContexts: contexts,
        });
      }
    }
    return new SamplingResult({
      resultIndex: generations.length - 1,
      success: false,
      sampleGenerations: generations,
      sampleValidations: validations,
      sampleActions: generations.map(() => action),
      sampleContexts: contexts,
    });
  }
}

describe("HookRegistry", () => {
  it("runs handlers in order, passes changes along, merges them, and unsubscribes", async () => {
    const hooks = new HookRegistry();
    const seen: number[] = [];
    hooks.on("samplingLoopStart", ({ loopBudget }) => {
      seen.push(loopBudget);
      return { loopBudget: loopBudget + 1 };
    });
    const off = hooks.on("samplingLoopStart", ({ loopBudget }) => {
      seen.push(loopBudget);
      return { loopBudget: loopBudget * 10 };
    });
    expect(hooks.count("samplingLoopStart")).toBe(2);
    const payload = {
      samplingId: "id",
      strategy: new RetryUntilValid(),
      action: new CBlock("a"),
      context: new ChatContext(),
      loopBudget: 1,
    };
    expect(await hooks.emit("samplingLoopStart", payload)).toEqual({ loopBudget: 20 });
    expect(seen).toEqual([1, 2]);
    off();
    expect(await hooks.emit("samplingLoopStart", payload)).toEqual({ loopBudget: 2 });
    expect(hooks.count("samplingLoopStart")).toBe(1);
  });
});

describe("SamplingStrategy.sample", () => {
  function setup(responses: string[], loopBudget = 3) {
    const hooks = new HookRegistry();
    const events: string[] = [];
    const ids: string[] = [];
    hooks.on("samplingLoopStart", ({ samplingId }) => {
      ids.push(samplingId);
      events.push("start");
    });
    hooks.on("samplingLoopEnd", ({ samplingId, result, error }) => {
      ids.push(samplingId);
      events.push(
        `end:${result === null ? "none" : result.success}:${error === null ? "ok" : (error as Error).name}`,
      );
    });
    const backend = new ScriptedBackend({ responses, hooks: new HookRegistry() });
    const strategy = new RetryUntilValid({ loopBudget, hooks });
    return { hooks, events, ids, backend, strategy };
  }

  it("mints an id, succeeds within budget, and fires start and end with the same id", async () => {
    const { events, ids, backend, strategy } = setup(["  ", "answer"]);
    const result = await strategy.sample(new CBlock("q"), new ChatContext(), backend, [nonEmpty]);
    expect(result.success).toBe(true);
    expect(result.resultIndex).toBe(1);
    expect(result.result.value).toBe("answer");
    expect(result.result).toBeInstanceOf(ComputedModelOutputThunk);
    expect(result.resultCtx.lastOutput()).toBe(result.result);
    expect(result.resultAction).toBeInstanceOf(CBlock);
    expect(result.resultValidations.map(([, check]) => check.result)).toEqual([true]);
    expect(result.sampleGenerations).toHaveLength(2);
    expect(events).toEqual(["start", "end:true:ok"]);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[1]).toBe(ids[0]);
  });

  it("fires end when the budget is exhausted", async () => {
    const { events, backend, strategy } = setup(["", " ", "\n"], 3);
    const result = await strategy.sample(new CBlock("q"), new ChatContext(), backend, [nonEmpty]);
    expect(result.success).toBe(false);
    expect(result.sampleGenerations).toHaveLength(3);
    expect(events).toEqual(["start", "end:false:ok"]);
  });

  it("fires end when the strategy throws, and rethrows", async () => {
    const { events, backend, strategy } = setup([]);
    await expect(strategy.sample(new CBlock("q"), new ChatContext(), backend, [nonEmpty])).rejects.toThrow(
      /ScriptedBackend received generation 1/,
    );
    expect(events).toEqual(["start", "end:none:ScriptExhaustedError"]);
  });

  it("lets samplingLoopStart change the budget, and rejects a non-positive one", async () => {
    const { hooks, events, backend, strategy } = setup(["", "", "", "", "fine"], 1);
    const off = hooks.on("samplingLoopStart", () => ({ loopBudget: 5 }));
    const result = await strategy.sample(new CBlock("q"), new ChatContext(), backend, [nonEmpty]);
    expect(result.success).toBe(true);
    expect(strategy.lastRun?.loopBudget).toBe(5);
    off();
    hooks.on("samplingLoopStart", () => ({ loopBudget: 0 }));
    const error = await strategy
      .sample(new CBlock("q"), new ChatContext(), backend, [nonEmpty])
      .catch((caught: unknown) => caught);
    expect(InvalidLoopBudgetError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      "The sampling loop budget must be a positive integer but is 0. Fix the samplingLoopStart hook or the strategy's loopBudget.",
    );
    expect(events.at(-1)).toBe("end:none:InvalidLoopBudgetError");
  });

  it("uses the strategy's own requirements over the call's when set", async () => {
    const { backend } = setup(["x"]);
    const never: Requirement = { description: "never", validate: async () => new ValidationResult(false) };
    const strategy = new RetryUntilValid({ loopBudget: 1, requirements: [never], hooks: new HookRegistry() });
    const result = await strategy.sample(new CBlock("q"), new ChatContext(), backend, [nonEmpty]);
    expect(strategy.lastRun?.requirements).toEqual([never]);
    expect(result.success).toBe(false);
  });
});

describe("SamplingResult", () => {
  const generations = ["a", "b", "c"].map((text) =>
    ComputedModelOutputThunk.from(new ModelOutputThunk(text)),
  );
  const contexts = generations.map(() => new ChatContext());

  it("normalises missing lists to empty ones", () => {
    const result = new SamplingResult({ resultIndex: 0, success: false, sampleGenerations: null });
    expect(result.sampleGenerations).toEqual([]);
    expect(result.sampleValidations).toEqual([]);
    expect(result.sampleActions).toEqual([]);
    expect(result.sampleContexts).toEqual([]);
    expect(result.resultValidations).toEqual([]);
  });

  it("accepts a negative index, counted from the end as in Python (MultiTurn's failure choice is -1)", () => {
    const result = new SamplingResult({
      resultIndex: -1,
      success: false,
      sampleGenerations: generations,
      sampleContexts: contexts,
    });
    expect(result.resultIndex).toBe(-1);
    expect(result.result.value).toBe("c");
    expect(result.resultCtx).toBe(contexts[2]);
    expect(
      new SamplingResult({ resultIndex: -3, success: false, sampleGenerations: generations }).result.value,
    ).toBe("a");
  });

  it.each([3, -4, 1.5, Number.NaN])("refuses index %s with a typed error naming the valid range", (index) => {
    let caught: unknown = null;
    try {
      new SamplingResult({ resultIndex: index, success: false, sampleGenerations: generations });
    } catch (error) {
      caught = error;
    }
    expect(SamplingResultIndexError.isInstance(caught)).toBe(true);
    const error = caught as SamplingResultIndexError;
    expect(error.message).toContain(String(index));
    expect(error.message).toContain("0..2");
    expect(error.message).toContain("-3..-1");
    expect(error.resultIndex).toBe(index);
    expect(error.sampleCount).toBe(3);
  });

  it("reading the result of a run with no samples throws the typed error instead of giving undefined", () => {
    const empty = new SamplingResult({ resultIndex: 0, success: false });
    expect(() => empty.result).toThrow(SamplingResultIndexError);
    expect(() => empty.resultCtx).toThrow(/no samples/);
  });
});
