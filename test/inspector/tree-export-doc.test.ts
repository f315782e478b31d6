// The library example of docs/inspector.md, "The tree as one page", as written there, run with plain
// `node` against the built package (npm run build:ts first).
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the tree export example of docs/inspector.md", async () => {
  const result = await runMarkdownExample(
    markdownExample("renderInspectorTreePage(", {
      file: "docs/inspector.md",
      heading: "The tree as one page",
    }),
  );
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("[ 1, 2 ]\n");
});
