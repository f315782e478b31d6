// The README's example for this section, as written there, run with plain `node`.
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the README example", async () => {
  const result = await runMarkdownExample(markdownExample("startTesseraServer("));
  expect(result.code, result.stderr).toBe(0);
  // The streamed text, then "<ttfb> <time to first token> processed".
  expect(result.stdout).toMatch(/\d+(\.\d+)? \d+(\.\d+)? processed\n$/);
});
