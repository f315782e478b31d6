// The example of docs/models.md, "Synthetic models (GGUF)", as written there, run with plain `node`.
import { expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

it("runs the example of docs/models.md", async () => {
  const result = await runMarkdownExample(
    markdownExample("readGgufFile(tiny)", { file: "docs/models.md", heading: "Synthetic models (GGUF)" }),
  );
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("21 { type: 'uint32', value: 2 }\n");
});
