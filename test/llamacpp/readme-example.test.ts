// The front-door examples of README.md and the examples of docs/llamacpp.md and docs/native.md, as written
// there, run with plain `node` on the tiny model.
import { describe, expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

describe("README.md", () => {
  it("runs the generate-and-stream example", async () => {
    const example = markdownExample("for await (const delta of thunk)", {
      file: "README.md",
      heading: "Generate and stream",
    });
    const result = await runMarkdownExample(example);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/promptTokens: \d+, completionTokens: 24/);
  });

  it("runs the read-logits example: one line per token, processed and raw logprobs, top 3", async () => {
    const example = markdownExample("rawLogits", { file: "README.md", heading: "Read logits" });
    const result = await runMarkdownExample(example);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    for (const line of lines)
      expect(line).toMatch(/ processed -\d+\.\d\d raw -\d+\.\d\d \| (.+ -\d+\.\d\d, ){2}.+ -\d+\.\d\d$/);
  });
});

describe("docs/llamacpp.md", () => {
  it("runs the LlamaCppBackend example", async () => {
    const example = markdownExample('new CBlock("Judge")', { file: "docs/llamacpp.md" });
    const result = await runMarkdownExample(example);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/promptTokens/);
  });
});

describe("docs/native.md", () => {
  it("runs the native layer example", async () => {
    const result = await runMarkdownExample(markdownExample("loadLlamaModel(", { file: "docs/native.md" }));
    expect(result.code, result.stderr).toBe(0);
  });
});
