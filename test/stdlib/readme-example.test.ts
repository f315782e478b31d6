// The README example of "Requirements, strategies, functional API", as written there, run with plain
// `node` on the tiny model.
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the README example", async () => {
  const result = await runMarkdownExample(markdownExample("startSession("), 300_000);
  expect(result.code, result.stderr).toBe(0);
  const lines = result.stdout.trimEnd().split("\n");
  // The instruct line ends with success (true/false) and 1 to 3 sample generations; then the label.
  expect(lines.join("\n")).toMatch(/ (true|false) [123]\n/);
  expect(["positive", "negative"]).toContain(lines.at(-1));
}, 320_000);
