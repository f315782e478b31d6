import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CBlock } from "../../src/core/cblock.js";
import { Component } from "../../src/core/component.js";
import { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import type { TemplateRepresentation } from "../../src/core/template-representation.js";
import {
  builtInTemplateRoot,
  simplifyModelName,
  TemplateFormatter,
  TemplateNotFoundError,
  TemplateRenderError,
} from "../../src/formatting/index.js";
import { Document, Message } from "../../src/messages/index.js";

/** A component whose representation the test chooses. */
class Probe extends Component<string> {
  constructor(private readonly representation: Omit<TemplateRepresentation, "obj"> | string) {
    super();
  }
  parts() {
    return [];
  }
  formatForLlm(): TemplateRepresentation | string {
    return typeof this.representation === "string"
      ? this.representation
      : { obj: this, ...this.representation };
  }
  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}

const scratch = mkdtempSync(join(tmpdir(), "tessera-templates-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function writeTemplate(relativePath: string, source: string): void {
  const path = join(scratch, relativePath);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, source);
}

describe("built-in templates", () => {
  const formatter = new TemplateFormatter("some-model");

  it("render a document as [Document <id>] then Title: text", () => {
    expect(formatter.print(new Document("Paris is in France.", "Geography", "d1"))).toBe(
      "[Document d1]\nGeography: Paris is in France.",
    );
    expect(formatter.print(new Document("Untitled text."))).toBe("[Document]\nUntitled text.");
  });

  it("render a message as its content followed by its documents", () => {
    expect(formatter.print(new Message("user", "Where is Paris?"))).toBe("Where is Paris?");
    const message = new Message("user", "Answer from the documents.", {
      documents: [new Document("A", "T1", "1"), "B"],
    });
    expect(formatter.print(message)).toBe(
      "Answer from the documents.\n\n[Document 1]\nT1: A\n\n[Document]\nB",
    );
  });

  it("live next to this module, so dist/ finds its copy", () => {
    expect(builtInTemplateRoot).toMatch(/formatting[\\/]templates[\\/]$/);
    expect(formatter.templateFor(new Document("x"))?.relativePath).toBe("default/Document.njk");
  });

  it("print blocks and computed outputs as their value", () => {
    expect(formatter.print(new CBlock("plain"))).toBe("plain");
    expect(formatter.print(new ModelOutputThunk("generated"))).toBe("generated");
  });
});

describe("model-family overrides", () => {
  writeTemplate("default/Probe.njk", "default {{ word }}");
  writeTemplate("llama/Probe.njk", "llama {{ word }}");
  writeTemplate("llama/llama3/Probe.njk", "llama3 {{ word }}");
  writeTemplate("granite/Probe.njk", "granite {{ word }}");
  const probe = new Probe({ args: { word: "hi" } });

  it("simplify names by dropping - . / : , and lower-casing", () => {
    expect(simplifyModelName("meta-llama/Llama-3.2-1B:Q4,x")).toBe("metallamallama321bq4x");
  });

  it("pick the deepest folder whose simplified name is in the model id", () => {
    expect(new TemplateFormatter("meta-llama/Llama-3.2-1B", { templatePaths: [scratch] }).print(probe)).toBe(
      "llama3 hi",
    );
    expect(new TemplateFormatter("llama-2-7b", { templatePaths: [scratch] }).print(probe)).toBe("llama hi");
    expect(
      new TemplateFormatter("ibm-granite/granite-3.3-8b", { templatePaths: [scratch] }).print(probe),
    ).toBe("granite hi");
  });

  it("fall back to default/ when no family matches", () => {
    expect(new TemplateFormatter("qwen2.5", { templatePaths: [scratch] }).print(probe)).toBe("default hi");
  });

  it("follow the template order, with * as the class name", () => {
    writeTemplate("default/Fallback.njk", "fallback {{ word }}");
    const ordered = new Probe({ args: { word: "x" }, templateOrder: ["Missing", "Fallback", "*"] });
    expect(new TemplateFormatter("m", { templatePaths: [scratch] }).print(ordered)).toBe("fallback x");
  });

  it("prefer the caller's folders over the built-in templates", () => {
    writeTemplate("default/Document.njk", "DOC {{ text }}");
    expect(new TemplateFormatter("m", { templatePaths: [scratch] }).print(new Document("t"))).toBe("DOC t");
  });
});

describe("rendering", () => {
  const formatter = new TemplateFormatter("m");

  it("renders inline templates with stringified nested args", () => {
    const inner = new Probe("inner text");
    const probe = new Probe({
      template:
        "{{ title }}: {% for item in items %}[{{ item }}]{% endfor %} {{ block }} {{ output }} {{ count + 1 }}",
      args: {
        title: "T",
        items: [inner, new Document("d", null, "7")],
        block: new CBlock("b"),
        output: new ModelOutputThunk("o"),
        count: 1,
      },
    });
    expect(formatter.print(probe)).toBe("T: [inner text][[Document 7]\nd] b o 2");
  });

  it("does not HTML-escape prompts", () => {
    expect(formatter.print(new Probe({ template: "{{ code }}", args: { code: 'a < b && "c"' } }))).toBe(
      'a < b && "c"',
    );
  });

  it("treats an undefined variable in an inline template as an error", () => {
    const probe = new Probe({ template: "Hello {{ nmae }}", args: { name: "Ada" } });
    try {
      formatter.print(probe);
      expect.unreachable();
    } catch (error) {
      expect(TemplateRenderError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("Probe");
      expect((error as Error).message).toMatch(/undefined/);
    }
  });

  it("reports a syntax error in an inline template as a TemplateRenderError", () => {
    expect(() => formatter.print(new Probe({ template: "{% if %}", args: {} }))).toThrow(TemplateRenderError);
  });

  it("names the component and the files it looked for when no template exists", () => {
    const probe = new Probe({ args: {}, templateOrder: ["*", "Nowhere"] });
    try {
      formatter.print(probe);
      expect.unreachable();
    } catch (error) {
      expect(TemplateNotFoundError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("Probe.njk, Nowhere.njk");
    }
  });
});

describe("template cache", () => {
  it("reuses the compiled template, and can be turned off", () => {
    writeTemplate("cache/default/Probe.njk", "first");
    const root = join(scratch, "cache");
    const cached = new TemplateFormatter("m", { templatePaths: [root] });
    const uncached = new TemplateFormatter("m", { templatePaths: [root], useTemplateCache: false });
    const probe = new Probe({ args: {} });
    expect(cached.print(probe)).toBe("first");
    expect(uncached.print(probe)).toBe("first");
    writeTemplate("cache/default/Probe.njk", "second");
    expect(cached.print(probe)).toBe("first");
    expect(uncached.print(probe)).toBe("second");
  });
});
