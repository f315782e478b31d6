// The README's sampling-strategy example and the example of docs/strategies.md, "Requirements, strategies,
// functional API", as written there, run with plain `node` on the tiny model.
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the README's sampling-strategy example", async () => {
  const example = markdownExample("RejectionSamplingStrategy", {
    file: "README.md",
    heading: "A sampling strategy",
  });
  const result = await runMarkdownExample(example, 300_000);
  expect(result.code, result.stderr).toBe(0);
  // success (true/false), 1 to 4 samples, then the chosen text as JSON.
  expect(result.stdout).toMatch(/^(true|false) [1-4] ".*"\n$/);
}, 320_000);

it("runs the example of docs/strategies.md", async () => {
  const example = markdownExample("startSession(", {
    file: "docs/strategies.md",
    heading: "Requirements, strategies, functional API",
  });
  const result = await runMarkdownExample(example, 300_000);
  expect(result.code, result.stderr).toBe(0);
  const lines = result.stdout.trimEnd().split("\n");
  // The instruct line ends with success (true/false) and 1 to 3 sample generations; then the label.
  expect(lines.join("\n")).toMatch(/ (true|false) [123]\n/);
  expect(["positive", "negative"]).toContain(lines.at(-1));
}, 320_000);
