import { describe, expect, it } from "vitest";
import { CBlock } from "../../src/core/cblock.js";
import { Component } from "../../src/core/component.js";
import { Context } from "../../src/core/context.js";
import { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import type { Span } from "../../src/core/span.js";
import type { TemplateRepresentation } from "../../src/core/template-representation.js";
import { TemplateFormatter, UncomputedOutputError } from "../../src/formatting/index.js";
import { Document, Message } from "../../src/messages/index.js";

/** The simplest real context: its view for generation is its whole history. */
class LinearContext extends Context {
  get isChatContext(): boolean {
    return true;
  }
  viewForGeneration(): Span[] {
    return this.asList();
  }
}

class Note extends Component<string> {
  constructor(
    private readonly text: string,
    private readonly role: (TemplateRepresentation["role"] & {}) | null = null,
  ) {
    super();
  }
  parts() {
    return [];
  }
  formatForLlm(): TemplateRepresentation {
    return { obj: this, args: { text: this.text }, template: "Note: {{ text }}", role: this.role };
  }
  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}

const formatter = new TemplateFormatter("m");
const summary = (messages: Message[]) => messages.map((message) => [message.role, message.content]);

describe("ChatFormatter.toChatMessages", () => {
  it("turns a context view into messages by the role rules", () => {
    const system = new Message("system", "Be kind.");
    const view: Span[] = [
      system,
      new CBlock("Hi there"),
      new ModelOutputThunk("Hello!"),
      new Note("remember this"),
      new Note("as system", "system"),
      new Document("Paris", "Capital", "9"),
    ];
    const messages = formatter.toChatMessages(view);
    expect(summary(messages)).toEqual([
      ["system", "Be kind."],
      ["user", "Hi there"],
      ["assistant", "Hello!"],
      ["user", "Note: remember this"],
      ["system", "Note: as system"],
      ["user", "[Document 9]\nCapital: Paris"],
    ]);
    expect(messages[0]).toBe(system);
  });

  it("uses a thunk's parsed component, or its parsed value as JSON", () => {
    const parsedToMessage = new ModelOutputThunk<Message>("raw", {
      parsedRepr: new Message("assistant", "parsed"),
    });
    const parsedToObject = new ModelOutputThunk<unknown>("raw", { parsedRepr: { answer: 42 } });
    const parsedToNote = new ModelOutputThunk<unknown>("raw", { parsedRepr: new Note("n") });
    expect(summary(formatter.toChatMessages([parsedToMessage, parsedToObject, parsedToNote]))).toEqual([
      ["assistant", "parsed"],
      ["assistant", '{"answer":42}'],
      ["assistant", "Note: n"],
    ]);
  });

  it("formats the view of a real context", () => {
    const context = new LinearContext()
      .add(new CBlock("question"))
      .add(new ModelOutputThunk("answer"))
      .add(new Message("user", "thanks"));
    expect(summary(formatter.toChatMessages(context.viewForGeneration()))).toEqual([
      ["user", "question"],
      ["assistant", "answer"],
      ["user", "thanks"],
    ]);
  });

  it("carries a thunk's reasoning onto the assistant message", () => {
    const [message] = formatter.toChatMessages([new ModelOutputThunk("ok", { thinking: "because" })]);
    expect(message?.thinking).toBe("because");
  });

  it("refuses an output that is not computed yet", () => {
    expect(() => formatter.toChatMessages([new ModelOutputThunk(null)])).toThrow(UncomputedOutputError);
  });
});
