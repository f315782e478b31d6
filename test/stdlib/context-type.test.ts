import { describe, expect, it } from "vitest";
import {
  type Backend,
  CBlock,
  ComputedModelOutputThunk,
  type Context,
  ContextTypeMismatchError,
  type GenerateAction,
  type GenerateOptions,
  type GenerateResult,
  ModelOutputThunk,
  type SampleActionType,
  SamplingResult,
  SamplingStrategy,
} from "../../src/core/index.js";
import { act, ChatContext, chat, Message, Session, SimpleContext } from "../../src/stdlib/index.js";
import { ScriptedBackend } from "../../src/testing/index.js";
import { scripted } from "./helpers.js";

/** A backend that answers in a fresh SimpleContext whatever context it was given. */
class TypeChangingBackend extends ScriptedBackend {
  override async generateFromContext<T = string>(
    action: GenerateAction<T>,
    context: Context,
    options?: GenerateOptions<T>,
  ): Promise<GenerateResult<T>> {
    const result = await super.generateFromContext(action, context, options);
    return { thunk: result.thunk, context: new SimpleContext().add(action).add(result.thunk) };
  }
}

/** Returns one computed sample per given context; the last is chosen. */
class FixedContextsStrategy extends SamplingStrategy {
  constructor(readonly contexts: Context[]) {
    super();
  }

  protected async doSample<T>(): Promise<SamplingResult<T>> {
    const generations = this.contexts.map((_, index) =>
      ComputedModelOutputThunk.from(new ModelOutputThunk<T>(`sample ${index}`)),
    );
    return new SamplingResult<T>({
      resultIndex: -1,
      success: true,
      sampleGenerations: generations,
      sampleActions: generations.map(() => new CBlock("q") as SampleActionType<T>),
      sampleContexts: this.contexts,
    });
  }
}

const typeChanging = () => new TypeChangingBackend({ responses: ["answer"] });

describe("the context type flowing out equals the one flowing in", () => {
  it("a ChatContext in gives a ChatContext out", async () => {
    const { context } = await act(new Message("user", "hi"), new ChatContext(), scripted(["hello"]));
    expect(context.constructor).toBe(ChatContext);
  });

  it("a backend that changes the context type throws ContextTypeMismatchError naming both types", async () => {
    const failure = await act(new Message("user", "hi"), new ChatContext(), typeChanging()).catch(
      (error: unknown) => error,
    );
    expect(ContextTypeMismatchError.isInstance(failure)).toBe(true);
    const error = failure as ContextTypeMismatchError;
    expect(error.inputType).toBe("ChatContext");
    expect(error.outputType).toBe("SimpleContext");
    expect(error.message).toContain("allowContextTypeChange: true");
  });

  it("chat() goes through the same check", async () => {
    await expect(chat("hi", new ChatContext(), typeChanging())).rejects.toBeInstanceOf(
      ContextTypeMismatchError,
    );
  });

  it("allowContextTypeChange: true lets a deliberate change through", async () => {
    const { context } = await act(new Message("user", "hi"), new ChatContext(), typeChanging(), {
      allowContextTypeChange: true,
    });
    expect(context).toBeInstanceOf(SimpleContext);
  });

  it("a subclass of ChatContext stays itself and passes the check", async () => {
    class LabelledChat extends ChatContext {}
    const { context } = await act("hi", new LabelledChat(), scripted(["hello"]));
    expect(context.constructor).toBe(LabelledChat);
  });

  it("with a strategy, every sample's context is checked, not only the chosen one", async () => {
    const backend: Backend = scripted([]);
    const mismatched = new FixedContextsStrategy([new SimpleContext(), new ChatContext()]);
    await expect(act("q", new ChatContext(), backend, { strategy: mismatched })).rejects.toBeInstanceOf(
      ContextTypeMismatchError,
    );
    const matching = await act("q", new ChatContext(), backend, {
      strategy: new FixedContextsStrategy([new ChatContext(), new ChatContext()]),
    });
    expect(matching.output.value).toBe("sample 1");
    const allowed = await act("q", new ChatContext(), backend, {
      strategy: mismatched,
      allowContextTypeChange: true,
    });
    expect(allowed.samplingResult?.sampleContexts[0]).toBeInstanceOf(SimpleContext);
  });

  it("a session enforces it by default, allows it when built with allowContextTypeChange, and clones keep the flag", async () => {
    const strict = new Session({ backend: typeChanging(), context: new ChatContext() });
    expect(strict.allowContextTypeChange).toBe(false);
    await expect(strict.act(new Message("user", "hi"))).rejects.toBeInstanceOf(ContextTypeMismatchError);

    const lenient = new Session({
      backend: typeChanging(),
      context: new ChatContext(),
      allowContextTypeChange: true,
    });
    await lenient.act(new Message("user", "hi"));
    expect(lenient.context).toBeInstanceOf(SimpleContext);
    expect(lenient.clone().allowContextTypeChange).toBe(true);
  });
});
