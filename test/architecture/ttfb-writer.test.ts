// Issue 13: `ttfbMs` has exactly one writer, the thunk, at the first part a backend delivers. Backends
// that measured it themselves disagreed on what "first byte" meant.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./layer-rules.js";

/** Every `….ttfbMs = …` or `….ttfbMs ??= …` in a source text, with its line. */
function ttfbWrites(source: string): string[] {
  return source
    .split("\n")
    .filter((line) => /\.ttfbMs\s*(\?\?=|\|\|=|=(?!=))/.test(line))
    .map((line) => line.trim());
}

describe("ttfbMs", () => {
  it("is written in one place only: the thunk", () => {
    const writers = sourceFiles().flatMap((file) =>
      ttfbWrites(readFileSync(file, "utf8")).map((line) => `${file}: ${line}`),
    );
    expect(writers).toEqual([
      "src/core/model-output-thunk.ts: this.generation.ttfbMs = performance.now() - startedAt;",
    ]);
  });

  it("finds assignments and ignores comparisons", () => {
    expect(
      ttfbWrites(
        "a.ttfbMs = 1;\nb.generation.ttfbMs ??= 2;\nif (c.ttfbMs === null) x();\nconst { ttfbMs } = g;",
      ),
    ).toEqual(["a.ttfbMs = 1;", "b.generation.ttfbMs ??= 2;"]);
  });
});
