import { describe, expect, it } from "vitest";
import { CBlock, InvalidLoopBudgetError, type SampleRun, ValidationResult } from "../../src/core/index.js";
import {
  ChatContext,
  ChatContextRequiredError,
  Instruction,
  InvalidConcurrencyBudgetError,
  Message,
  MultiTurnStrategy,
  RejectionSamplingStrategy,
  RepairTemplateStrategy,
  SamplingAbortedError,
  SimpleContext,
} from "../../src/stdlib/index.js";
import { contains, recordedHooks, recording, scripted } from "./helpers.js";

describe("RejectionSamplingStrategy", () => {
  it("resamples the same action in the same context until one passes, and reports that one", async () => {
    const backend = scripted(["red", "green", "blue", "unused"]);
    const { hooks, events } = recordedHooks();
    const strategy = new RejectionSamplingStrategy({ loopBudget: 4, hooks });
    const action = new CBlock("name a colour");
    const context = new SimpleContext();
    const result = await strategy.sample(action, context, backend, [contains("blue")]);
    expect(result.success).toBe(true);
    expect(result.resultIndex).toBe(2);
    expect(result.result.value).toBe("blue");
    expect(backend.calls).toHaveLength(3);
    expect(backend.calls.every((call) => call.action === action && call.context === context)).toBe(true);
    expect(result.sampleGenerations.map((thunk) => thunk.value)).toEqual(["red", "green", "blue"]);
    expect(result.resultValidations[0]![1].result).toBe(true);
    expect(result.sampleValidations[0]![0]![1].reason).toBe('"blue" is missing');
    expect(events).toEqual([
      "start",
      "iteration 0 fail",
      "iteration 1 fail",
      "iteration 2 pass",
      "end success",
    ]);
  });

  it("stops at the loop budget and selects the first sample on failure", async () => {
    const backend = scripted(["one", "two", "three"]);
    const { hooks, events } = recordedHooks();
    const result = await new RejectionSamplingStrategy({ loopBudget: 3, hooks }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [contains("never")],
    );
    expect(result.success).toBe(false);
    expect(result.resultIndex).toBe(0);
    expect(result.result.value).toBe("one");
    expect(result.sampleGenerations).toHaveLength(3);
    expect(events).toEqual([
      "start",
      "iteration 0 fail",
      "iteration 1 fail",
      "iteration 2 fail",
      "end failure",
    ]);
  });

  it("passes at once without requirements", async () => {
    const backend = scripted(["anything"]);
    const result = await new RejectionSamplingStrategy({ loopBudget: 5 }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
    );
    expect(result.success).toBe(true);
    expect(backend.calls).toHaveLength(1);
  });

  it("rejects budgets below 1 and non-integers, from the constructor and from a hook", async () => {
    expect(() => new RejectionSamplingStrategy({ loopBudget: 0 })).toThrow(InvalidLoopBudgetError);
    expect(() => new RejectionSamplingStrategy({ loopBudget: 1.5 })).toThrow(InvalidLoopBudgetError);
    expect(() => new RejectionSamplingStrategy({ concurrencyBudget: 0 })).toThrow(
      InvalidConcurrencyBudgetError,
    );
    expect(() => new RejectionSamplingStrategy({ concurrencyBudget: Number.NaN })).toThrow(
      InvalidConcurrencyBudgetError,
    );
    const { hooks, events } = recordedHooks();
    hooks.on("samplingLoopStart", () => ({ loopBudget: 0 }));
    const backend = scripted(["x"]);
    await expect(
      new RejectionSamplingStrategy({ hooks }).sample(new CBlock("q"), new SimpleContext(), backend),
    ).rejects.toBeInstanceOf(InvalidLoopBudgetError);
    expect(events).toEqual(["start", "end error"]);
    expect(backend.calls).toHaveLength(0);
  });

  it("lets a samplingLoopStart hook raise the budget", async () => {
    const { hooks } = recordedHooks();
    hooks.on("samplingLoopStart", () => ({ loopBudget: 3 }));
    const backend = scripted(["a", "b", "c"]);
    const result = await new RejectionSamplingStrategy({ loopBudget: 1, hooks }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [contains("c")],
    );
    expect(result.success).toBe(true);
    expect(result.sampleGenerations).toHaveLength(3);
  });

  it("fires samplingLoopEnd with the error when generation fails, and rethrows it", async () => {
    const failure = new Error("backend exploded");
    const backend = scripted(["fine", { text: "partial", failWith: failure }]);
    const { hooks, events } = recordedHooks();
    await expect(
      new RejectionSamplingStrategy({ loopBudget: 3, hooks }).sample(
        new CBlock("q"),
        new SimpleContext(),
        backend,
        [contains("never")],
      ),
    ).rejects.toBe(failure);
    expect(events).toEqual(["start", "iteration 0 fail", "end error"]);
  });

  it("uses the strategy's requirements instead of the call's, each once, in a stable order", async () => {
    const seen: string[] = [];
    const first = recording("first", true, seen);
    const second = recording("second", true, seen);
    const perCall = recording("per call", false, seen);
    const strategy = new RejectionSamplingStrategy({ requirements: [second, first, second] });
    const result = await strategy.sample(new CBlock("q"), new SimpleContext(), scripted(["out"]), [perCall]);
    expect(result.success).toBe(true);
    expect(result.resultValidations.map(([requirement]) => requirement.description)).toEqual([
      "second",
      "first",
    ]);
    expect(seen).toEqual(["out", "out"]);
  });

  it("validates over the run's validation context plus the sample when one is given", async () => {
    const backend = scripted(["answer"]);
    const validationContext = new ChatContext().add(new CBlock("reference"));
    let viewed: string[] = [];
    const strategy = new RejectionSamplingStrategy();
    await strategy.sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      [
        {
          description: "sees the validation context",
          async validate(_backend, context) {
            viewed = context.asList().map(String);
            return new ValidationResult(true);
          },
        },
      ],
      { validationContext },
    );
    expect(viewed).toEqual(["reference", "answer"]);
  });

  it("draws concurrent samples as one raw batch when the context sends no history", async () => {
    const backend = scripted(["a", "b", "c", "d", "ok", "f"]);
    const { hooks, events } = recordedHooks();
    const strategy = new RejectionSamplingStrategy({ loopBudget: 3, concurrencyBudget: 3, hooks });
    const result = await strategy.sample(new CBlock("q"), new SimpleContext(), backend, [contains("ok")]);
    expect(backend.calls.map((call) => call.kind)).toEqual(["raw", "raw", "raw", "raw", "raw", "raw"]);
    expect(result.success).toBe(true);
    // The first passing sample of the second round ends the run; the rest of that round is left out.
    expect(result.resultIndex).toBe(4);
    expect(result.sampleGenerations).toHaveLength(5);
    expect(result.sampleContexts[4]!.asList().map(String)).toEqual(["q", "ok"]);
    expect(events.filter((event) => event.startsWith("iteration"))).toHaveLength(5);
  });

  it("draws concurrent samples as concurrent context calls when the context has history", async () => {
    const backend = scripted(["x", "y"]);
    const history = new ChatContext().add(new Message("user", "earlier"));
    await new RejectionSamplingStrategy({ concurrencyBudget: 2 }).sample(new CBlock("q"), history, backend);
    expect(backend.calls.map((call) => call.kind)).toEqual(["context", "context"]);
    expect(backend.calls[0]!.view).toHaveLength(1);
  });

  it("passes format, model options and a sampling id label to the backend", async () => {
    const backend = scripted(["x"]);
    let run: SampleRun<unknown> | null = null;
    const { hooks } = recordedHooks();
    hooks.on("samplingLoopStart", ({ samplingId }) => {
      run = { samplingId } as SampleRun<unknown>;
    });
    await new RejectionSamplingStrategy({ hooks }).sample(
      new CBlock("q"),
      new SimpleContext(),
      backend,
      null,
      {
        modelOptions: { temperature: 0.5 },
      },
    );
    expect(backend.calls[0]!.options.modelOptions).toEqual({ temperature: 0.5 });
    expect(backend.calls[0]!.options.labels).toEqual({
      samplingId: (run as unknown as SampleRun<unknown>).samplingId,
    });
  });

  it("aborts between samples with the completed samples attached", async () => {
    const controller = new AbortController();
    const backend = scripted(["one", "two", "three"]);
    const { hooks, events } = recordedHooks();
    hooks.on("samplingIteration", () => {
      controller.abort(new Error("user pressed stop"));
    });
    const error = await new RejectionSamplingStrategy({ loopBudget: 3, hooks })
      .sample(new CBlock("q"), new SimpleContext(), backend, [contains("never")], {
        signal: controller.signal,
      })
      .catch((caught: unknown) => caught);
    expect(SamplingAbortedError.isInstance(error)).toBe(true);
    const aborted = error as SamplingAbortedError;
    expect(aborted.partialResult.sampleGenerations.map((thunk) => thunk.value)).toEqual(["one"]);
    expect(aborted.name).toBe("AbortError");
    expect(backend.calls).toHaveLength(1);
    expect(events.at(-1)).toBe("end error");
  });

  it("does nothing when the signal is already aborted", async () => {
    const backend = scripted(["never"]);
    const error = await new RejectionSamplingStrategy()
      .sample(new CBlock("q"), new SimpleContext(), backend, null, { signal: AbortSignal.abort() })
      .catch((caught: unknown) => caught);
    expect(SamplingAbortedError.isInstance(error)).toBe(true);
    expect((error as SamplingAbortedError).samplesDrawn).toBe(0);
    expect(backend.calls).toHaveLength(0);
  });

  it("aborts a generation in flight", async () => {
    const controller = new AbortController();
    const backend = scripted([{ text: "a slow answer with many words", delayMs: 20 }]);
    setTimeout(() => controller.abort(), 30);
    const error = await new RejectionSamplingStrategy()
      .sample(new CBlock("q"), new SimpleContext(), backend, null, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(SamplingAbortedError.isInstance(error)).toBe(true);
    expect((error as SamplingAbortedError).samplesDrawn).toBe(0);
  });
});

describe("RepairTemplateStrategy", () => {
  it("resends the instruction with a repair note naming only the failed requirements and their reasons", async () => {
    const backend = scripted(["apples", "apples and pears", "never used"]);
    const instruction = new Instruction({
      description: "List fruit.",
      requirements: [contains("apples"), contains("pears"), contains("secret", { checkOnly: true })],
    });
    const strategy = new RepairTemplateStrategy({ loopBudget: 3 });
    const result = await strategy.sample(instruction, new SimpleContext(), backend, [
      contains("apples"),
      contains("pears"),
    ]);
    expect(result.success).toBe(true);
    expect(result.resultIndex).toBe(1);
    const repaired = backend.calls[1]!.action as Instruction;
    expect(repaired).toBeInstanceOf(Instruction);
    expect(repaired.repair).toBe(
      'The following requirements failed before:\n* mentions pears (why: "pears" is missing)',
    );
    expect(repaired.description).toBe("List fruit.");
    expect(repaired.requirements).toBe(instruction.requirements);
    expect(instruction.repair).toBeNull();
    expect(backend.calls[1]!.context).toBe(backend.calls[0]!.context);
  });

  it("never names check-only requirements, and resends non-instructions unchanged", async () => {
    const backend = scripted(["a", "b", "c", "d"]);
    const instruction = new Instruction({ description: "Say something." });
    const hidden = contains("secret", { checkOnly: true });
    const result = await new RepairTemplateStrategy({ loopBudget: 2 }).sample(
      instruction,
      new SimpleContext(),
      backend,
      [hidden],
    );
    expect(result.success).toBe(false);
    expect(backend.calls[1]!.action).toBe(instruction);
    const block = new CBlock("plain");
    await new RepairTemplateStrategy({ loopBudget: 2 }).sample(block, new SimpleContext(), backend, [
      contains("z"),
    ]);
    expect(backend.calls[3]!.action).toBe(block);
  });
});

describe("MultiTurnStrategy", () => {
  it("needs a chat context", async () => {
    const { hooks, events } = recordedHooks();
    const backend = scripted(["x"]);
    await expect(
      new MultiTurnStrategy({ hooks }).sample(new CBlock("q"), new SimpleContext(), backend),
    ).rejects.toBeInstanceOf(ChatContextRequiredError);
    expect(backend.calls).toHaveLength(0);
    expect(events).toEqual(["start", "end error"]);
  });

  it("keeps the failed answer in the chat and asks again naming the unmet requirements", async () => {
    const backend = scripted(["short", "still short", "long enough answer"]);
    const question = new Message("user", "Write a long answer.");
    const result = await new MultiTurnStrategy({ loopBudget: 3 }).sample(
      question,
      new ChatContext(),
      backend,
      [contains("long")],
    );
    expect(result.success).toBe(true);
    expect(result.resultIndex).toBe(2);
    const secondView = backend.calls[1]!.view!;
    expect(secondView[0]).toBe(question);
    expect(String(secondView[1])).toBe("short");
    const followUp = backend.calls[1]!.action as Message;
    expect(followUp.role).toBe("user");
    expect(followUp.content).toContain('* mentions long (why: "long" is missing)');
    expect(followUp.content).toContain("Please try again");
    // The third call sees the whole conversation so far.
    expect(backend.calls[2]!.view).toHaveLength(4);
  });

  it("selects the last sample when every turn fails", async () => {
    const backend = scripted(["a", "b"]);
    const result = await new MultiTurnStrategy({ loopBudget: 2 }).sample(
      new CBlock("q"),
      new ChatContext(),
      backend,
      [contains("z")],
    );
    expect(result.success).toBe(false);
    // As in Mellea, the failure choice is -1: the last sample, counted from the end.
    expect(result.resultIndex).toBe(-1);
    expect(result.result.value).toBe("b");
    expect(result.resultCtx).toBe(result.sampleContexts[1]);
    expect(result.resultAction).toBe(result.sampleActions[1]);
  });
});
