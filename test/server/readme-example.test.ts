// The example of docs/server.md, as written there, run with plain `node`.
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the example of docs/server.md", async () => {
  const result = await runMarkdownExample(markdownExample("startTesseraServer(", { file: "docs/server.md" }));
  expect(result.code, result.stderr).toBe(0);
  // The streamed text, then "<ttfb> <time to first token> processed".
  expect(result.stdout).toMatch(/\d+(\.\d+)? \d+(\.\d+)? processed\n$/);
});
