import { describe, expect, it } from "vitest";
import {
  CBlock,
  Component,
  Context,
  ContextCycleError,
  ContextTurn,
  ContextTypeMismatchError,
  InvalidContextNodeError,
  ModelOutputThunk,
  type Span,
} from "../../src/core/index.js";
import { ChatContext, SimpleContext } from "../../src/stdlib/contexts/index.js";

class Reply extends Component<string> {
  readonly role: string;
  constructor(role: string) {
    super();
    this.role = role;
  }
  parts(): Span[] {
    return [];
  }
  formatForLlm(): string {
    return "reply";
  }
  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}

/** A context whose constructor needs an argument, to prove fromPrevious() never calls it. */
class TaggedContext extends Context {
  static override propagatedFields = ["tag"];
  static constructions = 0;
  readonly tag: string;
  constructor(tag: string) {
    super();
    TaggedContext.constructions += 1;
    this.tag = tag;
  }
  get isChatContext(): boolean {
    return true;
  }
  override newInstance(): TaggedContext {
    return new TaggedContext(this.tag);
  }
  viewForGeneration(): Span[] {
    return this.asList();
  }
}

/** A subclass of a subclass: propagated fields of both levels must travel. */
class WindowedTaggedContext extends TaggedContext {
  static override propagatedFields = ["label"];
  readonly label: string;
  constructor(tag: string, label: string) {
    super(tag);
    this.label = label;
  }
}

const a = new CBlock("a");
const b = new CBlock("b");
const c = new CBlock("c");

describe("Context", () => {
  it("starts as a root node with no data and no previous node", () => {
    const root = new ChatContext();
    expect(root.isRootNode).toBe(true);
    expect(root.previousNode).toBeNull();
    expect(root.nodeData).toBeNull();
    expect(root.asList()).toEqual([]);
    expect(root.lastTurn()).toBeNull();
    expect(root.lastOutput()).toBeNull();
  });

  it("is immutable: add() returns a new node of the same type linked to the old one", () => {
    const root = new ChatContext({ windowSize: 4 });
    const one = root.add(a);
    const two = one.add(b);
    expect(one).toBeInstanceOf(ChatContext);
    expect(two).not.toBe(one);
    expect(one.asList()).toEqual([a]);
    expect(two.asList()).toEqual([a, b]);
    expect(two.previousNode).toBe(one);
    expect(two.nodeData).toBe(b);
    expect(two.isRootNode).toBe(false);
    expect(two.isChatContext).toBe(true);
    expect(two.windowSize).toBe(4);
    expect(Context.isInstance(two)).toBe(true);
  });

  it("builds nodes without re-running constructors and copies propagated fields along the class chain", () => {
    const root = new WindowedTaggedContext("t1", "l1");
    const before = TaggedContext.constructions;
    const next = root.add(a).add(b);
    expect(TaggedContext.constructions).toBe(before);
    expect(next).toBeInstanceOf(WindowedTaggedContext);
    expect(next.tag).toBe("t1");
    expect(next.label).toBe("l1");
    expect(next.isChatContext).toBe(true);
    expect(TaggedContext.fromPrevious(new TaggedContext("x"), c).tag).toBe("x");
  });

  it("rejects fromPrevious without a context or without data", () => {
    expect(() => SimpleContext.fromPrevious({} as SimpleContext, a)).toThrow(InvalidContextNodeError);
    expect(() => SimpleContext.fromPrevious(new SimpleContext(), null as unknown as Span)).toThrow(
      /data is missing/,
    );
  });

  it("resetToNew and newInstance give empty roots; newInstance keeps configuration", () => {
    const chat = new ChatContext({ windowSize: 2 }).add(a);
    const fresh = chat.newInstance();
    expect(fresh).toBeInstanceOf(ChatContext);
    expect(fresh.isRootNode).toBe(true);
    expect(fresh.windowSize).toBe(2);
    const reset = ChatContext.resetToNew();
    expect(reset.windowSize).toBeNull();
    expect(new SimpleContext().add(a).newInstance().isRootNode).toBe(true);
    expect(new TaggedContext("keep").add(a).newInstance().tag).toBe("keep");
  });

  it("asList returns spans oldest first, limited to the most recent n", () => {
    const context = new SimpleContext().add(a).add(b).add(c);
    expect(context.asList()).toEqual([a, b, c]);
    expect(context.asList(2)).toEqual([b, c]);
    expect(context.asList(10)).toEqual([a, b, c]);
    expect(context.asList(0)).toEqual([]);
  });

  it("allows the same span twice (not a cycle) but rejects a repeated node", () => {
    const context = new SimpleContext().add(a).add(b).add(a);
    expect(context.asList()).toEqual([a, b, a]);
    const first = new SimpleContext().add(a);
    const second = first.add(b);
    // Corrupt the list on purpose: the root-most node now points back at the newest.
    (first as unknown as { previous: Context }).previous = second;
    expect(() => second.asList()).toThrow(ContextCycleError);
  });

  it("lastOutput finds the most recent thunk within the last n spans", () => {
    const thunk = new ModelOutputThunk("answer");
    const context = new ChatContext().add(a).add(thunk).add(b).add(c);
    expect(context.lastOutput()).toBe(thunk);
    expect(context.lastOutput(2)).toBeNull();
    const newer = new ModelOutputThunk("newer");
    expect(context.add(newer).lastOutput()).toBe(newer);
  });

  describe("lastTurn", () => {
    it("pairs the input with a thunk output", () => {
      const thunk = new ModelOutputThunk("out");
      const turn = new ChatContext().add(a).add(thunk).lastTurn();
      expect(turn).toBeInstanceOf(ContextTurn);
      expect(turn?.modelInput).toBe(a);
      expect(turn?.output).toBe(thunk);
    });

    it("recognises a manually added assistant component as the output", () => {
      const reply = new Reply("assistant");
      const turn = new ChatContext().add(a).add(reply).lastTurn();
      expect(turn?.modelInput).toBe(a);
      expect(turn?.output).toBe(reply);
    });

    it("treats a trailing input (or a user component) as a partial turn without output", () => {
      const user = new Reply("user");
      expect(new ChatContext().add(a).add(user).lastTurn()).toEqual(new ContextTurn(user, null));
    });

    it("returns an output-only turn when the output is the only span", () => {
      const thunk = new ModelOutputThunk("alone");
      expect(new ChatContext().add(thunk).lastTurn()).toEqual(new ContextTurn(null, thunk));
    });
  });

  it("SimpleContext sends no history; ChatContext sends it, within its window", () => {
    const simple = new SimpleContext().add(a).add(b);
    expect(simple.isChatContext).toBe(false);
    expect(simple.viewForGeneration()).toEqual([]);
    expect(simple.actionsForAvailableTools()).toEqual([]);
    const chat = new ChatContext().add(a).add(b).add(c);
    expect(chat.viewForGeneration()).toEqual([a, b, c]);
    expect(chat.actionsForAvailableTools()).toEqual([a, b, c]);
    expect(new ChatContext({ windowSize: 2 }).add(a).add(b).add(c).viewForGeneration()).toEqual([b, c]);
  });

  it("rejects a window size that is not a positive integer", () => {
    expect(() => new ChatContext({ windowSize: 0 })).toThrow(RangeError);
    expect(() => new ChatContext({ windowSize: 1.5 })).toThrow(/positive integer/);
  });

  it("ContextTypeMismatchError names both types and the opt-out", () => {
    const error = new ContextTypeMismatchError("ChatContext", "SimpleContext");
    expect(error.message).toBe(
      "Expected the returned context to be a ChatContext (the type passed in) but received a SimpleContext. " +
        "Return the same context type, or pass allowContextTypeChange: true if the change is deliberate.",
    );
    expect(ContextTypeMismatchError.isInstance(error)).toBe(true);
    expect(new ContextTypeMismatchError(ChatContext, SimpleContext).message).toBe(error.message);
    expect(ContextTypeMismatchError.isInstance(new Error("x"))).toBe(false);
  });
});
