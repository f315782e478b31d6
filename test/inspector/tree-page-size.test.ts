// The tree page draws every branch with its whole path, so it grows with the sum of all path lengths: a
// hundred forks near the end of a 4k-token branch once made /api/export/tree.html fail with V8's "Invalid
// string length" after blocking the server for seconds. The page is refused beyond a bound, with a typed
// error, before any path is copied; branchPathLength counts what branchPath would return.
import { describe, expect, it } from "vitest";
import { InspectorTreeTooLargeError } from "../../src/inspector/errors/inspector-tree-too-large-error.js";
import { buildInspectorTreeReport, maximumTreePageTokens } from "../../src/inspector/live/branch-export.js";
import { branchPath, branchPathLength } from "../../src/inspector/live/branch-path.js";
import type { BranchView } from "../../src/inspector/live/inspector-session.js";
import type { LiveToken } from "../../src/inspector/live/live-token.js";

function tokens(count: number): LiveToken[] {
  return Array.from({ length: count }, (_, index) => ({
    index,
    token: 100 + index,
    text: ` t${index}`,
    processed: null,
    raw: null,
  }));
}

function branch(
  id: number,
  own: number,
  fork: { parentId: number; atTokenIndex: number; alternative: boolean } | null = null,
): BranchView {
  return {
    id,
    parentId: fork?.parentId ?? null,
    atTokenIndex: fork?.atTokenIndex ?? null,
    kind: fork === null ? "root" : fork.alternative ? "alternative" : "resample",
    forkToken: fork?.alternative ? { token: 7, text: " seven" } : null,
    prompt: "p",
    settings: { temperature: 0 },
    status: "done",
    finishReason: "length",
    error: null,
    tokens: tokens(own),
    reusedPromptTokens: null,
    decodedPromptTokens: null,
    promptTokens: 1,
    held: false,
    firstTokenMs: null,
  };
}

describe("the tree page's size", () => {
  it("counts each branch's path as branchPath draws it", () => {
    const tree = [
      branch(1, 10),
      branch(2, 5, { parentId: 1, atTokenIndex: 3, alternative: true }),
      branch(3, 4, { parentId: 2, atTokenIndex: 5, alternative: true }), // after the parent's last token
      branch(4, 6, { parentId: 1, atTokenIndex: 8, alternative: false }), // a re-sample: no fork token
      branch(5, 2, { parentId: 3, atTokenIndex: 0, alternative: true }),
    ];
    const byId = new Map(tree.map((entry) => [entry.id, entry] as const));
    for (const entry of tree) {
      expect(branchPathLength(byId, entry.id), `branch ${entry.id}`).toBe(branchPath(byId, entry.id).length);
    }
  });

  it("refuses a tree whose paths add up past the bound, naming the exports that still work", () => {
    // A 4,000-token root and 13 forks near its end: ~56,000 tokens drawn, each fork repeating the root.
    const tree = [branch(1, 4000)];
    for (let id = 2; id <= 14; id++)
      tree.push(branch(id, 10, { parentId: 1, atTokenIndex: 3990, alternative: true }));
    let caught: unknown;
    try {
      buildInspectorTreeReport({ modelId: "m", branches: tree });
    } catch (error) {
      caught = error;
    }
    expect(InspectorTreeTooLargeError.isInstance(caught)).toBe(true);
    const error = caught as InspectorTreeTooLargeError;
    expect(error.pathTokens).toBeGreaterThan(maximumTreePageTokens);
    expect(error.message).toMatch(/\/api\/export\.json/);
    expect(error.kind).toBe("invalid-input");
  });

  it("draws a tree just under the bound", () => {
    const tree = [branch(1, 4000)];
    for (let id = 2; id <= 11; id++)
      tree.push(branch(id, 10, { parentId: 1, atTokenIndex: 3990, alternative: true }));
    const report = buildInspectorTreeReport({ modelId: "m", branches: tree });
    expect(report.branches).toHaveLength(11);
  });
});
