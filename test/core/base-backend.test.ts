import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type BackendCapabilities,
  BaseBackend,
  CBlock,
  type Context,
  extendModelOptionsSchema,
  type GenerateAction,
  type GenerateResult,
  GenerationAbortedError,
  HookRegistry,
  InvalidModelOptionError,
  ModelOutputThunk,
  ThunkProducerError,
  UnknownModelOptionError,
} from "../../src/core/index.js";
import { ChatContext, SimpleContext } from "../../src/stdlib/contexts/index.js";
import { ScriptExhaustedError, ScriptedBackend } from "../../src/testing/index.js";

describe("BaseBackend (through ScriptedBackend)", () => {
  it("returns the thunk and a context with the action and the thunk appended", async () => {
    const backend = new ScriptedBackend({ responses: ["hello there"], hooks: new HookRegistry() });
    const action = new CBlock("hi");
    const { thunk, context } = await backend.generateFromContext(action, new ChatContext());
    expect(context.asList()).toEqual([action, thunk]);
    expect(await thunk.avalue()).toBe("hello there");
    expect(thunk.action).toBe(action);
    expect(thunk.parsedRepr).toBe("hello there");
    expect(thunk.generation.provider).toBe("scripted");
    expect(thunk.generation.usage).toEqual({ promptTokens: 0, completionTokens: 2, totalTokens: 2 });
  });

  it("records each call with the view a real backend would send", async () => {
    const backend = new ScriptedBackend({ responses: ["one", "two"], hooks: new HookRegistry() });
    const first = await backend.generateFromContext(new CBlock("q1"), new ChatContext());
    await first.thunk.avalue();
    await backend.generateFromContext(new CBlock("q2"), first.context, { modelOptions: { temperature: 0 } });
    expect(backend.calls).toHaveLength(2);
    expect(backend.calls[1]?.view).toEqual(first.context.asList());
    expect(backend.calls[1]?.options.modelOptions).toEqual({ temperature: 0 });
    const simple = await backend.generateFromRaw([], new SimpleContext());
    expect(simple).toEqual([]);
  });

  it("merges defaults under call options and validates them before any work", async () => {
    const backend = new ScriptedBackend({
      responses: ["x"],
      defaultModelOptions: { temperature: 0.7, seed: 1 },
      hooks: new HookRegistry(),
    });
    await expect(
      backend.generateFromContext(new CBlock("q"), new ChatContext(), {
        modelOptions: { temprature: 1 } as unknown as { temperature: number },
      }),
    ).rejects.toBeInstanceOf(UnknownModelOptionError);
    await expect(
      backend.generateFromContext(new CBlock("q"), new ChatContext(), { modelOptions: { topP: 0 } }),
    ).rejects.toBeInstanceOf(InvalidModelOptionError);
    expect(backend.calls).toHaveLength(0);
    await backend.generateFromContext(new CBlock("q"), new ChatContext(), {
      modelOptions: { temperature: 0 },
    });
    expect(backend.calls[0]?.options.modelOptions).toEqual({ temperature: 0, seed: 1 });
  });

  it("lets a generationPreCall hook replace the options (validated again) and fires generationPostCall", async () => {
    const hooks = new HookRegistry();
    const seen: string[] = [];
    hooks.on("generationPreCall", ({ modelOptions }) => {
      seen.push(`pre:${modelOptions.temperature}`);
      return { modelOptions: { ...modelOptions, maxNewTokens: 5 } };
    });
    hooks.on("generationPostCall", ({ thunk }) => {
      seen.push(`post:${thunk.isComputed()}`);
    });
    const backend = new ScriptedBackend({ responses: ["x"], hooks });
    await backend.generateFromContext(new CBlock("q"), new ChatContext(), {
      modelOptions: { temperature: 1 },
    });
    expect(seen).toEqual(["pre:1", "post:false"]);
    expect(backend.calls[0]?.options.modelOptions).toEqual({ temperature: 1, maxNewTokens: 5 });
  });

  it("does nothing when the signal is already aborted", async () => {
    const backend = new ScriptedBackend({ responses: ["x"], hooks: new HookRegistry() });
    const controller = new AbortController();
    controller.abort();
    await expect(
      backend.generateFromContext(new CBlock("q"), new ChatContext(), { signal: controller.signal }),
    ).rejects.toThrow();
    expect(backend.calls).toHaveLength(0);
  });

  it("fires generationError and rethrows when the backend throws", async () => {
    const hooks = new HookRegistry();
    const errors: unknown[] = [];
    hooks.on("generationError", ({ error }) => {
      errors.push(error);
    });
    const failure = new Error("model not loaded");
    const backend = new ScriptedBackend({ responses: [{ text: "", throwOnCall: failure }], hooks });
    await expect(backend.generateFromContext(new CBlock("q"), new ChatContext())).rejects.toBe(failure);
    expect(errors).toEqual([failure]);
    await expect(backend.generateFromContext(new CBlock("q"), new ChatContext())).rejects.toBeInstanceOf(
      ScriptExhaustedError,
    );
  });

  it("refuses a backend that returns an uncomputed thunk nobody feeds", async () => {
    class BrokenBackend extends BaseBackend {
      readonly modelId = "broken";
      readonly capabilities: BackendCapabilities = {
        images: false,
        audio: false,
        logits: false,
        rawLogits: false,
        grammar: false,
        tools: false,
        toolChoice: false,
        parallelSequences: 1,
      };
      protected async doGenerateFromContext<T>(
        _action: GenerateAction<T>,
        context: Context,
      ): Promise<GenerateResult<T>> {
        return { thunk: new ModelOutputThunk<T>(), context };
      }
      protected async doGenerateFromRaw<T>(): Promise<Array<ModelOutputThunk<T>>> {
        return [];
      }
    }
    const backend = new BrokenBackend({ hooks: new HookRegistry() });
    await expect(backend.generateFromContext(new CBlock("q"), new ChatContext())).rejects.toBeInstanceOf(
      ThunkProducerError,
    );
  });

  it("validates backend-specific options with an extended schema", async () => {
    class ExtendedBackend extends ScriptedBackend {
      protected override get modelOptionsSchema() {
        return extendModelOptionsSchema({ gpuLayers: z.number().int().min(0).optional() });
      }
    }
    const backend = new ExtendedBackend({ responses: ["a", "b"], hooks: new HookRegistry() });
    const options = { gpuLayers: 3 } as unknown as { temperature: number };
    await backend.generateFromContext(new CBlock("q"), new ChatContext(), { modelOptions: options });
    expect(backend.calls[0]?.options.modelOptions).toEqual({ gpuLayers: 3 });
    const bad = { gpuLayers: -1 } as unknown as { temperature: number };
    await expect(
      backend.generateFromContext(new CBlock("q"), new ChatContext(), { modelOptions: bad }),
    ).rejects.toThrow('Invalid value for model option "gpuLayers": received -1; expected at least 0.');
  });

  it("generates a batch from raw actions, one thunk per action, without history", async () => {
    const backend = new ScriptedBackend({ responses: ["r1", "r2"], hooks: new HookRegistry() });
    const actions = [new CBlock("p1"), new CBlock("p2")];
    const context = new ChatContext().add(new CBlock("history"));
    const thunks = await backend.generateFromRaw(actions, context);
    expect(await Promise.all(thunks.map((thunk) => thunk.avalue()))).toEqual(["r1", "r2"]);
    expect(thunks.map((thunk) => thunk.action)).toEqual(actions);
    expect(backend.calls.map((call) => call.kind)).toEqual(["raw", "raw"]);
  });
});

describe("ScriptedBackend", () => {
  it("streams given chunks with delays, thinking first", async () => {
    const backend = new ScriptedBackend({
      responses: [{ text: "abc", chunks: ["a", "b", "c"], delayMs: 5, thinking: "hmm" }],
      hooks: new HookRegistry(),
    });
    const { thunk } = await backend.generateFromContext(new CBlock("q"), new ChatContext());
    const deltas: string[] = [];
    for await (const delta of thunk) deltas.push(delta);
    expect(deltas).toEqual(["a", "b", "c"]);
    expect(thunk.thinking).toBe("hmm");
  });

  it("answers from a function when given one", async () => {
    const backend = new ScriptedBackend({
      responses: (call, index) => `${index}:${String(call.action)}`,
      hooks: new HookRegistry(),
    });
    const { thunk } = await backend.generateFromContext(new CBlock("ping"), new ChatContext());
    expect(await thunk.avalue()).toBe("0:ping");
  });

  it("stops producing when nobody reads (backpressure)", async () => {
    const backend = new ScriptedBackend({
      responses: [{ text: "", chunks: Array.from({ length: 50 }, (_, index) => `${index} `) }],
      queueCapacity: 2,
      hooks: new HookRegistry(),
    });
    const { thunk } = await backend.generateFromContext(new CBlock("q"), new ChatContext());
    for (let tick = 0; tick < 20; tick += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(backend.pushedChunks).toBe(2);
    await thunk.aclose();
    for (let tick = 0; tick < 5; tick += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(backend.pushedChunks).toBe(2);
  });

  it("fails with an AbortError carrying the partial text when the caller aborts mid-stream", async () => {
    const controller = new AbortController();
    const backend = new ScriptedBackend({
      responses: [{ text: "", chunks: ["one ", "two ", "three "], delayMs: 20 }],
      hooks: new HookRegistry(),
    });
    const { thunk } = await backend.generateFromContext(new CBlock("q"), new ChatContext(), {
      signal: controller.signal,
    });
    const first = await thunk.astream();
    expect(first).toBe("one ");
    controller.abort();
    const error = await thunk.avalue().catch((caught: unknown) => caught);
    expect(GenerationAbortedError.isInstance(error)).toBe(true);
    expect((error as GenerationAbortedError).name).toBe("AbortError");
    expect((error as GenerationAbortedError).partialText).toBe("one ");
    expect(thunk.value).toBe("one ");
  });

  it("fails the thunk with a scripted error after the chunks", async () => {
    const failure = new Error("server hung up");
    const backend = new ScriptedBackend({
      responses: [{ text: "part", failWith: failure }],
      hooks: new HookRegistry(),
    });
    const { thunk } = await backend.generateFromContext(new CBlock("q"), new ChatContext());
    await expect(thunk.avalue()).rejects.toBe(failure);
    expect(thunk.value).toBe("part");
  });

  it("parses structured output with the format schema, or records the failure", async () => {
    const format = z.object({ answer: z.number() });
    const backend = new ScriptedBackend({
      responses: ['{"answer": 42}', '{"answer": "no"}'],
      hooks: new HookRegistry(),
    });
    const good = await backend.generateFromContext(new CBlock("q"), new ChatContext(), { format });
    await good.thunk.avalue();
    expect(good.thunk.parsedRepr).toEqual({ answer: 42 });
    const bad = await backend.generateFromContext(new CBlock("q"), new ChatContext(), { format });
    expect(await bad.thunk.avalue()).toBe('{"answer": "no"}');
    expect(bad.thunk.parsedRepr).toBeNull();
    expect(bad.thunk.error?.name).toBe("ComponentParseError");
  });
});
