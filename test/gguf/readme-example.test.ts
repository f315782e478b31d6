// The README's "Models (GGUF)" example, as written there, run with plain `node`.
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the README example", async () => {
  const result = await runMarkdownExample(markdownExample("readGgufFile(tiny)"));
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("21 { type: 'uint32', value: 2 }\n");
});
