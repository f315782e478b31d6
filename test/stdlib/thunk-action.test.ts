// A ModelOutputThunk as the action of a generation or a sampling call (the seed's Span allows it), on the
// local backend with the generated tiny model (one thread) and on the ScriptedBackend for control flow.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { ComputedModelOutputThunk, ModelOutputThunk } from "../../src/core/index.js";
import {
  act,
  ChatContext,
  Instruction,
  MultiTurnStrategy,
  RejectionSamplingStrategy,
  req,
  SimpleContext,
  simpleValidate,
} from "../../src/stdlib/index.js";
import { scripted } from "./helpers.js";

let backend: LlamaCppBackend;
const short = { maxNewTokens: 4, seed: 1 };

beforeAll(async () => {
  backend = await LlamaCppBackend.create({ threads: 1, sequences: 4 });
});
afterAll(async () => {
  await backend?.dispose();
});

/** A computed thunk, as an earlier generation leaves it. */
const earlier = (text: string) => ComputedModelOutputThunk.from(new ModelOutputThunk(text));

describe("a ModelOutputThunk as the action", () => {
  it("generates on the local backend: the thunk is sent as the assistant turn and parsedRepr is the text", async () => {
    const action = earlier("The answer so far");
    const { thunk, context } = await backend.generateFromContext(action, new ChatContext(), {
      modelOptions: short,
    });
    const text = await thunk.avalue();
    expect(typeof text).toBe("string");
    expect(thunk.parsedRepr).toBe(text);
    expect(context.asList()).toEqual([action, thunk]);
    expect(thunk.action).toBe(action);
    expect(String(thunk.generateLog?.prompt)).toContain("The answer so far");
  });

  it("goes through act() and the strategies, which keep it as the sample action", async () => {
    const action = earlier("Continue this");
    const done = await act(action, new SimpleContext(), backend, { modelOptions: short });
    expect(done.output.parsedRepr).toBe(done.output.value);

    const anything = req(
      "is any text",
      simpleValidate(() => true),
    );
    const result = await new RejectionSamplingStrategy({ loopBudget: 2, concurrencyBudget: 2 }).sample(
      action,
      new SimpleContext(),
      backend,
      [anything],
      { modelOptions: short },
    );
    expect(result.success).toBe(true);
    expect(result.resultAction).toBe(action);
    expect(result.result.parsedRepr).toBe(result.result.value);
  });

  it("multi-turn repair keeps the thunk in the chat and asks again", async () => {
    const backend = scripted(["a", "b"]);
    const action = earlier("draft");
    const result = await new MultiTurnStrategy({ loopBudget: 2 }).sample(action, new ChatContext(), backend, [
      req(
        "never",
        simpleValidate(() => false),
      ),
    ]);
    expect(result.sampleActions[0]).toBe(action);
    expect(backend.calls[0]!.action).toBe(action);
    expect(backend.calls[1]!.view?.[0]).toBe(action);
  });

  it("the local backend sets promptTemplate* for an action rendered through a template, not for a thunk", async () => {
    const instruction = new Instruction({ description: "Name a colour." });
    const { thunk } = await backend.generateFromContext(instruction, new ChatContext(), {
      modelOptions: short,
    });
    await thunk.avalue();
    expect(thunk.generation.promptTemplate).toContain("{{");
    expect(thunk.generation.promptTemplateVariables).toMatchObject({ description: "Name a colour." });
    const plain = await backend.generateFromContext(earlier("x"), new ChatContext(), { modelOptions: short });
    await plain.thunk.avalue();
    expect(plain.thunk.generation.promptTemplate).toBeNull();
  });
});
