// The README's local-backend and native-layer examples, as written there, run with plain `node`.
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the LlamaCppBackend example", async () => {
  const result = await runMarkdownExample(markdownExample('new CBlock("Judge")'));
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/promptTokens/);
});

it("runs the native layer example", async () => {
  const result = await runMarkdownExample(markdownExample("loadLlamaModel("));
  expect(result.code, result.stderr).toBe(0);
});
