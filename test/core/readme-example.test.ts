// The README's and docs' examples, run as a reader runs them: each block pasted into a file and started
// with plain `node` on the Node this machine has (no vitest transform). This file checks that every
// example of README.md and docs/*.md parses, and runs those of docs/core.md and docs/messages.md (no
// native addon needed); the other layers' readme-example tests run theirs.
import { describe, expect, it } from "vitest";
import {
  checkMarkdownExampleSyntax,
  markdownExample,
  markdownExamples,
  runMarkdownExample,
} from "../helpers/markdown-examples.js";

describe("the README and docs examples", () => {
  it("all parse with plain node (no `await using`, no TypeScript-only syntax)", async () => {
    const examples = markdownExamples();
    expect(examples.length).toBeGreaterThanOrEqual(8);
    const failures: string[] = [];
    for (const example of examples) {
      const result = await checkMarkdownExampleSyntax(example);
      if (result.code !== 0) {
        const reason = result.stderr.split("\n").find((line) => /Error/.test(line)) ?? result.stderr;
        failures.push(`${example.file}:${example.line}: ${reason}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("runs the core example", async () => {
    const result = await runMarkdownExample(
      markdownExample("new ScriptedBackend(", { file: "docs/core.md" }),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Hello there!2\n5\n");
  });

  it("runs the stream parts example", async () => {
    const result = await runMarkdownExample(markdownExample("thunk.consume(", { file: "docs/core.md" }));
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("[Hello][, ][world]\nHello, world [ 'stop' ] 6\ntrue\n");
  });

  it("runs the messages example", async () => {
    const result = await runMarkdownExample(
      markdownExample("MessagesHistory.fromOpenAI(", { file: "docs/messages.md" }),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("runs the formatting example", async () => {
    const result = await runMarkdownExample(
      markdownExample("new TemplateFormatter(", { file: "docs/messages.md" }),
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});
