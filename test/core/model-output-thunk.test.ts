import { describe, expect, it } from "vitest";
import {
  BlockValueTypeError,
  CBlock,
  Component,
  ComponentParseError,
  GenerationAbortedError,
  GenerationCancelledError,
  HookRegistry,
  ModelOutputThunk,
  ModelToolCall,
  type Span,
  ThunkAlreadyComputedError,
  ThunkAlreadyIteratedError,
  ThunkNotStartedError,
  ThunkProducerError,
  ThunkSourceError,
} from "../../src/core/index.js";
import { partChannel } from "../helpers/part-channel.js";

class NumberComponent extends Component<number> {
  parts(): Span[] {
    return [];
  }
  formatForLlm(): string {
    return "give a number";
  }
  protected parseOutput(computed: ModelOutputThunk<number>): number {
    const parsed = Number(computed.value);
    if (Number.isNaN(parsed)) throw new Error(`not a number: ${computed.value}`);
    return parsed;
  }
}

function textProducer<T = string>(thunk: ModelOutputThunk<T>, capacity?: number) {
  const producer = partChannel(thunk, capacity === undefined ? {} : { capacity });
  return { producer };
}

async function settle(): Promise<void> {
  for (let index = 0; index < 5; index += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe("ModelOutputThunk", () => {
  describe("constructed with a value", () => {
    it("is computed, returns the value, and refuses to stream", async () => {
      const thunk = new ModelOutputThunk("done");
      expect(thunk.isComputed()).toBe(true);
      expect(await thunk.avalue()).toBe("done");
      await expect(thunk.astream()).rejects.toBeInstanceOf(ThunkAlreadyComputedError);
      expect(String(thunk)).toBe("done");
    });

    it("rejects a non-string value with a TypeError", () => {
      expect(() => new ModelOutputThunk(42 as unknown as string)).toThrow(BlockValueTypeError);
      const thunk = new ModelOutputThunk("x");
      expect(() => {
        thunk.value = {} as unknown as string;
      }).toThrow(TypeError);
    });
  });

  describe("fed by a producer", () => {
    it("applies nothing until a consumer reads (lazy, pull-driven)", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk);
      await producer.push("a");
      await producer.push("b");
      producer.end();
      await settle();
      expect(thunk.value).toBeNull();
      expect(thunk.isComputed()).toBe(false);
      expect(await thunk.avalue()).toBe("ab");
      expect(thunk.isComputed()).toBe(true);
      expect(thunk.parsedRepr).toBe("ab");
      expect(thunk.generation.ttfbMs).toBeGreaterThanOrEqual(0);
    });

    it("astream() returns only the new text since the previous call, then throws once complete", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk);
      await producer.push("Hel");
      await producer.push("lo");
      expect(await thunk.astream()).toBe("Hello");
      const next = thunk.astream();
      await producer.push(" world");
      expect(await next).toBe(" world");
      producer.end();
      expect(await thunk.astream()).toBe("");
      expect(thunk.isComputed()).toBe(true);
      await expect(thunk.astream()).rejects.toBeInstanceOf(ThunkAlreadyComputedError);
    });

    it("astream() takes only what was queued when called, even from a producer that keeps up", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk, 4);
      let pushed = 0;
      // A producer that refills the queue as soon as a slot frees: astream must still return.
      const feeding = (async () => {
        while (pushed < 10_000 && (await producer.push("x"))) pushed += 1;
        producer.end();
      })();
      await settle();
      const first = await thunk.astream();
      expect(first.length).toBeGreaterThan(0);
      expect(first.length).toBeLessThanOrEqual(5);
      expect(pushed).toBeLessThan(10_000);
      await thunk.cancelGeneration();
      await feeding;
    });

    it("delivers many small deltas that add up to the value", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk, 64);
      const feeding = (async () => {
        for (let index = 0; index < 20_000; index += 1) await producer.push(String(index % 10));
        producer.end();
      })();
      let joined = "";
      for await (const delta of thunk) joined += delta;
      await feeding;
      expect(joined.length).toBe(20_000);
      expect(joined).toBe(thunk.value);
    });

    it("makes push() wait while the queue is full and resumes as the consumer reads", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk, 2);
      expect(await producer.push("1")).toBe(true);
      expect(await producer.push("2")).toBe(true);
      let thirdSettled = false;
      const third = producer.push("3").then((accepted) => {
        thirdSettled = true;
        return accepted;
      });
      await settle();
      expect(thirdSettled).toBe(false);
      // Reading frees a slot; the waiting push fills it, so the read may already include "3".
      expect(["12", "123"]).toContain(await thunk.astream());
      expect(await third).toBe(true);
      producer.end();
      expect(await thunk.avalue()).toBe("123");
    });

    it("appends thinking separately and never yields it as text", async () => {
      const thunk = new ModelOutputThunk();
      const producer = partChannel(thunk);
      await producer.push({ type: "reasoning-delta", text: "let me " });
      await producer.push({ type: "reasoning-delta", text: "think" });
      await producer.push({ type: "text-delta", text: "answer" });
      producer.end();
      const deltas: string[] = [];
      for await (const delta of thunk) deltas.push(delta);
      expect(deltas).toEqual(["answer"]);
      expect(thunk.thinking).toBe("let me think");
    });

    it("applies tool calls, logits, usage, metadata and the finish reason from their parts", async () => {
      const thunk = new ModelOutputThunk();
      const producer = partChannel(thunk);
      const toolCall = new ModelToolCall("f", {} as never, {});
      const step = { token: 1, text: "x", logprob: -0.5, logSumExp: 0, top: [] };
      await producer.push({ type: "response-metadata", id: "r-1", model: "m" });
      await producer.push({ type: "logits", processed: [step], raw: [step] });
      await producer.push("x");
      await producer.push({ type: "tool-call", toolCall });
      await producer.push({ type: "usage", usage: { promptTokens: 2, completionTokens: 1, totalTokens: 3 } });
      await producer.push({ type: "finish", reason: "stop", choiceReasons: ["stop", "length"] });
      producer.end();
      expect(await thunk.avalue()).toBe("x");
      expect(thunk.toolCalls).toEqual([toolCall]);
      expect(thunk.generation.logits?.steps).toEqual([step]);
      expect(thunk.generation.rawLogits?.steps).toEqual([step]);
      expect(thunk.generation.usage).toEqual({ promptTokens: 2, completionTokens: 1, totalTokens: 3 });
      expect(thunk.generation.finishReasons).toEqual(["stop", "length"]);
      expect(thunk.generation.responseId).toBe("r-1");
      expect(thunk.generation.responseModel).toBe("m");
    });

    it("parses with the action's component into parsedRepr", async () => {
      const thunk = new ModelOutputThunk<number>();
      thunk.action = new NumberComponent();
      const { producer } = textProducer(thunk);
      await producer.push("4");
      await producer.push("2");
      producer.end();
      expect(await thunk.avalue()).toBe("42");
      expect(thunk.parsedRepr).toBe(42);
      expect(thunk.error).toBeNull();
    });

    it("records a parse failure softly on error (ComponentParseError with the cause) and keeps the text", async () => {
      const thunk = new ModelOutputThunk<number>();
      thunk.action = new NumberComponent();
      const { producer } = textProducer(thunk);
      await producer.push("forty-two");
      producer.end();
      expect(await thunk.avalue()).toBe("forty-two");
      expect(thunk.parsedRepr).toBeNull();
      expect(ComponentParseError.isInstance(thunk.error)).toBe(true);
      expect((thunk.error as ComponentParseError).componentName).toBe("NumberComponent");
      expect(((thunk.error as Error).cause as Error).message).toBe("not a number: forty-two");
    });

    it("sets parsedRepr to the value for a CBlock action", async () => {
      const thunk = new ModelOutputThunk();
      thunk.action = new CBlock("prompt");
      const { producer } = textProducer(thunk);
      await producer.push("out");
      producer.end();
      await thunk.avalue();
      expect(thunk.parsedRepr).toBe("out");
    });

    it("refuses a second producer and a producer on a computed thunk", () => {
      const thunk = new ModelOutputThunk();
      textProducer(thunk);
      expect(() => textProducer(thunk)).toThrow(ThunkProducerError);
      expect(() => textProducer(new ModelOutputThunk("done"))).toThrow(/already computed/);
    });

    it("refuses to wait on a thunk nothing produces into", async () => {
      const thunk = new ModelOutputThunk();
      await expect(thunk.avalue()).rejects.toBeInstanceOf(ThunkNotStartedError);
      await expect(thunk.astream()).rejects.toBeInstanceOf(ThunkNotStartedError);
    });
  });

  describe("failures", () => {
    it("surfaces fail() on avalue() and keeps the partial text readable", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk);
      await producer.push("partial ");
      await producer.push("text");
      const failure = new Error("connection reset");
      producer.fail(failure);
      await expect(thunk.avalue()).rejects.toBe(failure);
      expect(thunk.value).toBe("partial text");
      expect(thunk.failure).toBe(failure);
      expect(thunk.isComputed()).toBe(false);
      await expect(thunk.avalue()).rejects.toBe(failure);
      await expect(thunk.astream()).rejects.toBe(failure);
    });

    it("throws the failure from iteration after yielding the text received", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk);
      await producer.push("a");
      producer.fail(new RangeError("boom"));
      const deltas: string[] = [];
      await expect(
        (async () => {
          for await (const delta of thunk) deltas.push(delta);
        })(),
      ).rejects.toThrow("boom");
      expect(deltas).toEqual(["a"]);
    });

    it("fails the thunk and stops the source on an error part, after the text before it", async () => {
      const thunk = new ModelOutputThunk();
      const producer = partChannel(thunk, { capacity: 1 });
      await producer.push("ok");
      const failed = producer.push({ type: "error", error: new SyntaxError("unparsable chunk") });
      await expect(thunk.avalue()).rejects.toThrow("unparsable chunk");
      expect(await failed).toBe(false);
      expect(await producer.push("later")).toBe(false);
      expect(thunk.value).toBe("ok");
    });

    it("fails with a GenerationAbortedError when the caller's signal fires, after the queued text", async () => {
      const thunk = new ModelOutputThunk();
      const controller = new AbortController();
      const producer = partChannel(thunk, { signal: controller.signal });
      await producer.push("queued");
      controller.abort(new Error("caller left"));
      expect(producer.signal.aborted).toBe(true);
      expect(await producer.push("late")).toBe(false);
      const error = await thunk.avalue().catch((caught: unknown) => caught);
      expect(GenerationAbortedError.isInstance(error)).toBe(true);
      expect(thunk.value).toBe("queued");
      expect(thunk.cancelled).toBe(false);
    });
  });

  describe("cancellation", () => {
    it("drains the queue so a blocked push resolves false, aborts the signal, and keeps the text so far", async () => {
      const hooks = new HookRegistry();
      const errors: unknown[] = [];
      hooks.on("generationError", ({ error }) => {
        errors.push(error);
      });
      const thunk = new ModelOutputThunk();
      thunk.hooks = hooks;
      const { producer } = textProducer(thunk, 1);
      await producer.push("first");
      expect(await thunk.astream()).toBe("first");
      await producer.push("queued");
      const blocked = producer.push("blocked");
      await thunk.cancelGeneration();
      expect(await blocked).toBe(false);
      expect(await producer.push("late")).toBe(false);
      expect(producer.signal.aborted).toBe(true);
      expect(producer.signal.reason).toBeInstanceOf(GenerationCancelledError);
      expect(thunk.cancelled).toBe(true);
      expect(thunk.isComputed()).toBe(true);
      expect(thunk.value).toBe("first");
      expect(await thunk.avalue()).toBe("first");
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(GenerationCancelledError);
    });

    it("passes a given error to the signal and the generationError hook", async () => {
      const hooks = new HookRegistry();
      const seen: unknown[] = [];
      hooks.on("generationError", ({ error, thunk }) => {
        seen.push(error, thunk);
      });
      const thunk = new ModelOutputThunk();
      thunk.hooks = hooks;
      const { producer } = textProducer(thunk);
      const reason = new Error("requirement failed while streaming");
      await thunk.cancelGeneration(reason);
      expect(producer.signal.reason).toBe(reason);
      expect(seen).toEqual([reason, thunk]);
    });

    it("wakes a consumer waiting for output", async () => {
      const thunk = new ModelOutputThunk();
      textProducer(thunk);
      const waiting = thunk.avalue();
      await settle();
      await thunk.cancelGeneration();
      expect(await waiting).toBe("");
    });

    it("is a no-op after normal completion (cancelled stays false), and aclose() is idempotent", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk);
      await producer.push("x");
      producer.end();
      await thunk.avalue();
      await thunk.cancelGeneration();
      await thunk.aclose();
      await thunk[Symbol.asyncDispose]();
      expect(thunk.cancelled).toBe(false);
      expect(producer.signal.aborted).toBe(false);
    });

    it("aclose() and asyncDispose cancel an unfinished generation once", async () => {
      const hooks = new HookRegistry();
      let errorHooks = 0;
      hooks.on("generationError", () => {
        errorHooks += 1;
      });
      const thunk = new ModelOutputThunk();
      thunk.hooks = hooks;
      const { producer } = textProducer(thunk);
      await thunk[Symbol.asyncDispose]();
      await thunk.aclose();
      expect(producer.signal.aborted).toBe(true);
      expect(thunk.cancelled).toBe(true);
      expect(errorHooks).toBe(1);
    });
  });

  describe("async iteration", () => {
    it("yields text deltas in order and completes", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk);
      const produce = (async () => {
        for (const piece of ["The ", "", "quick ", "fox"]) await producer.push(piece);
        producer.end();
      })();
      const deltas: string[] = [];
      for await (const delta of thunk) deltas.push(delta);
      await produce;
      expect(deltas).toEqual(["The ", "quick ", "fox"]);
      expect(thunk.value).toBe("The quick fox");
      expect(thunk.cancelled).toBe(false);
    });

    it("allows one consumer: a second iterator throws", () => {
      const thunk = new ModelOutputThunk();
      textProducer(thunk);
      thunk[Symbol.asyncIterator]();
      expect(() => thunk[Symbol.asyncIterator]()).toThrow(ThunkAlreadyIteratedError);
    });

    it("cancels the generation when the loop is left early", async () => {
      const thunk = new ModelOutputThunk();
      const { producer } = textProducer(thunk, 1);
      const produce = (async () => {
        let pushed = 0;
        for (const piece of ["a", "b", "c", "d", "e"]) {
          if (!(await producer.push(piece))) break;
          pushed += 1;
        }
        return pushed;
      })();
      for await (const delta of thunk) {
        expect(delta).toBe("a");
        break;
      }
      expect(thunk.cancelled).toBe(true);
      expect(producer.signal.aborted).toBe(true);
      expect(await produce).toBeLessThanOrEqual(3);
      expect(thunk.value).toBe("a");
    });

    it("parts() yields every part as applied, and is the thunk's one iterator", async () => {
      const thunk = new ModelOutputThunk();
      const producer = partChannel(thunk);
      const step = { token: 1, text: "Hi", logprob: -1, logSumExp: 0, top: [] };
      const sent = [
        { type: "reasoning-delta", text: "hmm" },
        { type: "logits", processed: [step] },
        { type: "text-delta", text: "Hi" },
        { type: "text-delta", text: "" },
        { type: "usage", usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
        { type: "finish", reason: "stop" },
      ] as const;
      const feeding = (async () => {
        for (const part of sent) await producer.push(part);
        producer.end();
      })();
      const seen: unknown[] = [];
      for await (const part of thunk.parts()) seen.push(part);
      await feeding;
      // The empty text delta carries nothing and is not yielded.
      expect(seen).toEqual(sent.filter((part) => part.type !== "text-delta" || part.text !== ""));
      expect(() => thunk[Symbol.asyncIterator]()).toThrow(ThunkAlreadyIteratedError);
      expect(thunk.generation.finishReasons).toEqual(["stop"]);
    });

    it("parts() throws the failure after the parts before it, and leaving it early cancels", async () => {
      const failing = new ModelOutputThunk();
      const producer = partChannel(failing);
      await producer.push("partial");
      producer.fail(new Error("boom"));
      const seen: unknown[] = [];
      await expect(
        (async () => {
          for await (const part of failing.parts()) seen.push(part);
        })(),
      ).rejects.toThrow("boom");
      expect(seen).toEqual([{ type: "text-delta", text: "partial" }]);

      const left = new ModelOutputThunk();
      const source = partChannel(left, { capacity: 1 });
      void source.push("a");
      void source.push("b");
      for await (const _part of left.parts()) break;
      expect(left.cancelled).toBe(true);
      expect(source.signal.aborted).toBe(true);
    });

    it("yields the whole value of an already computed thunk once", async () => {
      const deltas: string[] = [];
      for await (const delta of new ModelOutputThunk("ready")) deltas.push(delta);
      expect(deltas).toEqual(["ready"]);
    });
  });
});

describe("ModelOutputThunk.onSettled (passive observers such as telemetry)", () => {
  it("fires once after completion and parsing, without reading the stream itself", async () => {
    const thunk = new ModelOutputThunk<number>();
    thunk.action = new NumberComponent();
    const seen: Array<number | null> = [];
    thunk.onSettled(() => seen.push(thunk.parsedRepr));
    const { producer } = textProducer(thunk);
    await producer.push("4");
    producer.end();
    await settle();
    expect(seen).toEqual([]); // Nobody read: the generation has not ended for its reader yet.
    expect(await thunk.avalue()).toBe("4");
    expect(seen).toEqual([4]);
  });

  it("fires on failure with the failure visible, and on cancel", async () => {
    const failing = new ModelOutputThunk();
    const failures: unknown[] = [];
    failing.onSettled(() => failures.push(failing.failure));
    const { producer } = textProducer(failing);
    producer.fail(new Error("boom"));
    await expect(failing.avalue()).rejects.toThrow("boom");
    expect(failures).toHaveLength(1);
    expect((failures[0] as Error).message).toBe("boom");

    const cancelled = new ModelOutputThunk();
    cancelled.hooks = new HookRegistry();
    textProducer(cancelled);
    let fired = 0;
    cancelled.onSettled(() => fired++);
    await cancelled.cancelGeneration();
    await cancelled.cancelGeneration();
    expect(fired).toBe(1);
    expect(cancelled.cancelled).toBe(true);
  });

  it("fires at once for a thunk built computed, and a throwing listener breaks nothing", async () => {
    const thunk = new ModelOutputThunk("done");
    let fired = false;
    thunk.onSettled(() => {
      throw new Error("observer bug");
    });
    thunk.onSettled(() => {
      fired = true;
    });
    await settle();
    expect(fired).toBe(true);
    expect(await thunk.avalue()).toBe("done");
  });
});

/** Rejects when `promise` has not settled within `ms`: a hang fails the test instead of timing it out. */
function within<T>(promise: Promise<T>, ms = 2000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms).unref(),
    ),
  ]);
}

describe("ModelOutputThunk.consume with a faulty source (review of issue 13)", () => {
  it("turns a failure without an error value (an error part of null, a thrown undefined) into a typed error", async () => {
    const withPart = new ModelOutputThunk();
    withPart.consume(async function* () {
      yield { type: "text-delta", text: "half" };
      yield { type: "error", error: null };
    });
    const fromPart = await within(withPart.avalue()).catch((caught: unknown) => caught);
    expect(ThunkSourceError.isInstance(fromPart)).toBe(true);
    expect((fromPart as Error).message).toContain("without an error value");
    expect(withPart.failure).toBe(fromPart);
    expect(withPart.value).toBe("half");

    const thrown = new ModelOutputThunk();
    thrown.consume(async function* () {
      yield { type: "text-delta", text: "x" };
      throw undefined;
    });
    const fromThrow = await within(thrown.avalue()).catch((caught: unknown) => caught);
    expect(ThunkSourceError.isInstance(fromThrow)).toBe(true);
  });

  it("refuses a capacity that is not a positive integer with a typed error naming capacity", async () => {
    const thunk = new ModelOutputThunk();
    let called = false;
    const source = async function* () {
      called = true;
      yield { type: "text-delta" as const, text: "never" };
    };
    for (const capacity of [0, -1, 1.5, Number.NaN]) {
      const error = (() => {
        try {
          thunk.consume(source, { capacity });
        } catch (caught) {
          return caught;
        }
        return null;
      })();
      expect(ThunkProducerError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("capacity");
    }
    expect(called).toBe(false);
    // Nothing started: the thunk says so rather than waiting forever, and a good call still works.
    await expect(within(thunk.avalue())).rejects.toBeInstanceOf(ThunkNotStartedError);
    thunk.consume(async function* () {
      yield { type: "text-delta", text: "ok" };
    });
    expect(await within(thunk.avalue())).toBe("ok");
  });

  it("fails the thunk when the source function throws synchronously", async () => {
    const thunk = new ModelOutputThunk();
    const settled: unknown[] = [];
    thunk.onSettled(() => settled.push(thunk.failure));
    const boom = new Error("source exploded");
    thunk.consume(() => {
      throw boom;
    });
    await expect(within(thunk.avalue())).rejects.toBe(boom);
    expect(settled).toEqual([boom]);
  });

  it("ignores parts after the finish part, but still fails on an error after it", async () => {
    const thunk = new ModelOutputThunk();
    thunk.consume(async function* () {
      yield { type: "text-delta", text: "answer" };
      yield { type: "finish", reason: "stop" };
      yield { type: "text-delta", text: " and more" };
      yield { type: "tool-call", toolCall: new ModelToolCall("late", {} as never, {}) };
      yield { type: "finish", reason: "length" };
    });
    expect(await within(thunk.avalue())).toBe("answer");
    expect(thunk.generation.finishReasons).toEqual(["stop"]);
    expect(thunk.toolCalls).toBeNull();

    const failing = new ModelOutputThunk();
    failing.consume(async function* () {
      yield { type: "text-delta", text: "half" };
      yield { type: "finish", reason: "error" };
      throw new Error("after finish");
    });
    await expect(within(failing.avalue())).rejects.toThrow("after finish");
    expect(failing.generation.finishReasons).toEqual(["error"]);
  });

  it("settles when the caller's signal fires even if nobody reads, and the queued text stays readable", async () => {
    const thunk = new ModelOutputThunk();
    const controller = new AbortController();
    const producer = partChannel(thunk, { signal: controller.signal });
    const seen: unknown[] = [];
    thunk.onSettled(() => seen.push(thunk.failure));
    await producer.push("queued");
    controller.abort(new Error("caller left"));
    await within(
      (async () => {
        while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
      })(),
    );
    expect(seen[0]).toBeInstanceOf(GenerationAbortedError);
    expect(producer.signal.aborted).toBe(true);
    const deltas: string[] = [];
    const failure = await within(
      (async () => {
        for await (const delta of thunk) deltas.push(delta);
      })(),
    ).catch((caught: unknown) => caught);
    expect(deltas.join("")).toBe("queued");
    expect(failure).toBeInstanceOf(GenerationAbortedError);
    expect(seen).toHaveLength(1);
  });
});
