import { describe, expect, it } from "vitest";
import {
  BlockValueTypeError,
  blockify,
  CBlock,
  Component,
  ComponentParseError,
  GenerateLog,
  GenerationMetadata,
  ModelOutputThunk,
  NotASpanError,
  type Span,
  TesseraError,
} from "../../src/core/index.js";

class Strict extends Component<{ ok: boolean }> {
  parts(): Span[] {
    return [new CBlock("part")];
  }
  formatForLlm(): string {
    return "strict";
  }
  protected parseOutput(computed: ModelOutputThunk<{ ok: boolean }>): { ok: boolean } {
    return JSON.parse(computed.value ?? "");
  }
}

describe("CBlock", () => {
  it("holds a string or null value, metadata and a cache flag", () => {
    const block = new CBlock("text", { meta: { source: "user" }, cache: true });
    expect(block.value).toBe("text");
    expect(block.meta).toEqual({ source: "user" });
    expect(block.cache).toBe(true);
    expect(new CBlock(null).value).toBeNull();
    expect(new CBlock("x").cache).toBe(false);
    expect(String(new CBlock("shown"))).toBe("shown");
    block.value = "changed";
    expect(block.value).toBe("changed");
  });

  it("throws a TypeError for a non-string value, in the constructor and the setter", () => {
    expect(() => new CBlock(3 as unknown as string)).toThrow(TypeError);
    expect(() => new CBlock([] as unknown as string)).toThrow(
      "Expected a string or null for CBlock.value but received an array. Convert the content to text first (for example with JSON.stringify).",
    );
    const block = new CBlock("x");
    let caught: unknown;
    try {
      block.value = { text: "x" } as unknown as string;
    } catch (error) {
      caught = error;
    }
    expect(BlockValueTypeError.isInstance(caught)).toBe(true);
    expect(block.value).toBe("x");
  });
});

describe("blockify", () => {
  it("wraps strings and passes blocks, components and thunks through", () => {
    const wrapped = blockify("hello");
    expect(wrapped).toBeInstanceOf(CBlock);
    expect((wrapped as CBlock).value).toBe("hello");
    const block = new CBlock("b");
    const component = new Strict();
    const thunk = new ModelOutputThunk("t");
    expect(blockify(block)).toBe(block);
    expect(blockify(component)).toBe(component);
    expect(blockify(thunk)).toBe(thunk);
  });

  it("rejects anything else with a TypeError", () => {
    expect(() => blockify(42 as unknown as string)).toThrow(NotASpanError);
    expect(() => blockify({} as unknown as string)).toThrow(
      "Expected a string, CBlock, Component or ModelOutputThunk but received Object.",
    );
  });
});

describe("Component.parse", () => {
  it("returns what parseOutput returns", () => {
    expect(new Strict().parse(new ModelOutputThunk('{"ok": true}'))).toEqual({ ok: true });
  });

  it("wraps any failure in ComponentParseError with the cause", () => {
    let caught: unknown;
    try {
      new Strict().parse(new ModelOutputThunk("not json"));
    } catch (error) {
      caught = error;
    }
    expect(ComponentParseError.isInstance(caught)).toBe(true);
    expect(TesseraError.isInstance(caught)).toBe(true);
    expect((caught as Error).cause).toBeInstanceOf(SyntaxError);
    expect((caught as Error).message).toMatch(/^Strict could not parse the model output: /);
  });

  it("recognises components across package copies by marker", () => {
    expect(Component.isInstance(new Strict())).toBe(true);
    expect(Component.isInstance(new CBlock("x"))).toBe(false);
    expect(Component.isInstance(null)).toBe(false);
  });
});

describe("GenerationMetadata and GenerateLog", () => {
  it("start empty", () => {
    const metadata = new GenerationMetadata();
    expect(metadata).toMatchObject({
      usage: null,
      model: null,
      provider: null,
      promptTemplate: null,
      promptTemplateVariables: null,
      ttfbMs: null,
      timeToFirstTokenMs: null,
      streaming: false,
      responseModel: null,
      finishReasons: null,
      responseId: null,
      logits: null,
      rawLogits: null,
      timings: null,
    });
    const log = new GenerateLog({ backend: "scripted", isFinalResult: true });
    expect(log.backend).toBe("scripted");
    expect(log.isFinalResult).toBe(true);
    expect(log.date).toBeInstanceOf(Date);
    expect(log.extra).toEqual({});
  });
});
