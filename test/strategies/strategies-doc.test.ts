// The example of docs/strategies.md, run as a reader runs it: plain node on the built package.
import { describe, expect, it } from "vitest";
import { markdownExample, runMarkdownExample } from "../helpers/markdown-examples.js";

describe("docs/strategies.md", () => {
  it("runs the streaming requirement example: the apology is cancelled, the next sample passes", async () => {
    const result = await runMarkdownExample(markdownExample("never apologises"));
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const [chosen, cancelled, count] = result.stdout.trimEnd().split("\n");
    expect(chosen).toBe("Here is the answer.");
    // The cancel lands once "Sorry," is a complete word; the producer may have queued a word more.
    expect(cancelled).toMatch(/^Sorry,\s+(I\s+)?(cannot\s+)?true$/);
    expect(count).toBe("1");
  });
});
