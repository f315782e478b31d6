import { describe, expect, it } from "vitest";
import { type Backend, CBlock } from "../../src/core/index.js";
import {
  ChatContext,
  MultiTurnStrategy,
  registerBackendFactory,
  Session,
  SessionDisposedError,
  SimpleContext,
  startSession,
  UnknownBackendError,
} from "../../src/stdlib/index.js";
import { ScriptedBackend } from "../../src/testing/index.js";
import { contains, scripted } from "./helpers.js";

describe("startSession and Session", () => {
  it("holds the context across instruct, chat, act and validate", async () => {
    const backend = scripted(["Paris", "It is in France.", "ok"]);
    const session = await startSession({ backend, modelOptions: { temperature: 0 } });
    expect(session.context).toBeInstanceOf(ChatContext);
    const { output } = await session.instruct("Name the capital of France.");
    expect(output.value).toBe("Paris");
    const { message } = await session.chat("Where is it?");
    expect(message.content).toBe("It is in France.");
    expect(backend.calls[1]!.view).toHaveLength(2);
    await session.act(new CBlock("thanks"), { modelOptions: { maxNewTokens: 4 } });
    expect(backend.calls[2]!.options.modelOptions).toEqual({ temperature: 0, maxNewTokens: 4 });
    expect(session.context.asList()).toHaveLength(6);
    const [validation] = await session.validate([contains("ok")]);
    expect(validation!.result).toBe(true);
    expect(session.context.asList()).toHaveLength(6);
  });

  it("uses the session's strategy for calls without their own", async () => {
    const backend = scripted(["wrong", "right"]);
    const session = await startSession({ backend, strategy: new MultiTurnStrategy({ loopBudget: 2 }) });
    const result = await session.instruct("Answer right.", { requirements: [contains("right")] });
    expect(result.output.value).toBe("right");
    expect(result.samplingResult?.sampleGenerations).toHaveLength(2);
  });

  it("clones into a diverging session and resets to an empty context of the same kind", async () => {
    const backend = scripted(["a", "b", "c"]);
    const session = await startSession({ backend, context: new SimpleContext() });
    await session.act("first");
    const copy = session.clone();
    await copy.act("second");
    expect(session.context.asList()).toHaveLength(2);
    expect(copy.context.asList()).toHaveLength(4);
    session.reset();
    expect(session.context.asList()).toEqual([]);
    expect(session.context).toBeInstanceOf(SimpleContext);
    await session.query({ a: 1 }, "what is a?");
    expect(session.context.asList()).toHaveLength(2);
  });

  it("throws SessionDisposedError after disposal, and closes only a backend it built", async () => {
    let closed = 0;
    class ClosableBackend extends ScriptedBackend {
      async [Symbol.asyncDispose]() {
        closed += 1;
      }
    }
    registerBackendFactory(
      "closable-test",
      (model) => new ClosableBackend({ responses: [`model ${model}`] }),
    );
    {
      await using session = await startSession({ backend: "closable-test", model: "tiny" });
      expect((await session.act("q")).output.value).toBe("model tiny");
    }
    expect(closed).toBe(1);
    const given: Backend = new ClosableBackend({ responses: [] });
    const session = await startSession({ backend: given });
    await session[Symbol.asyncDispose]();
    await session[Symbol.asyncDispose]();
    expect(closed).toBe(1);
    expect(session.disposed).toBe(true);
    await expect(session.instruct("x")).rejects.toBeInstanceOf(SessionDisposedError);
    expect(() => session.clone()).toThrow(SessionDisposedError);
  });

  it("refuses an unknown backend name, listing the registered ones", async () => {
    const error = await startSession({ backend: "no-such-backend" }).catch((caught: unknown) => caught);
    expect(UnknownBackendError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("closable-test");
    expect(new Session({ backend: scripted([]), context: new ChatContext() }).strategy).toBeNull();
  });
});
