// Imports point down the layers only (../shared/design/architecture.md): a new import the wrong way fails
// here, naming the file and the import.
import { describe, expect, it } from "vitest";
import { layerViolations, sourceFiles } from "./layer-rules.js";

// Known violations, each to be removed by issue 13's stream redesign: the server knows llama.cpp's
// tool-call markup (errors reach HTTP by their `kind` now, and tool_choice goes to a backend that declares
// it in backend.capabilities). Once backends yield typed parts, this list is empty.
// An entry that no longer occurs fails the test too, so the list only shrinks.
const knownViolations: string[] = [];

describe("the import graph of src/", () => {
  it("has a layer for every area, and no import the wrong way beyond the known issue-13 violations", () => {
    const { violations, unplaced } = layerViolations(sourceFiles());
    expect(unplaced, "areas of src/ without a rule in test/architecture/layer-rules.ts").toEqual([]);
    const found = violations.map((edge) => `${edge.from} -> ${edge.to}`).sort();
    expect(found).toEqual([...knownViolations].sort());
  });

  it("reports an import the wrong way, a type-only one and a dynamic one", () => {
    const sources: Record<string, string> = {
      "src/core/thunk.ts": 'import { chat } from "../stdlib/functional/chat.js";',
      "src/messages/message.ts": 'import type { Session } from "../stdlib/session/session.js";',
      "src/backends/openai/backend.ts": 'const { serve } = await import("../../server/serve.js");',
      "src/stdlib/ok.ts": 'import { Backend } from "../core/backend.js"; import { z } from "zod";',
    };
    const { violations } = layerViolations(Object.keys(sources), (path) => sources[path]!);
    expect(violations).toEqual([
      { from: "src/core/thunk.ts", to: "src/stdlib/functional/chat.js" },
      { from: "src/messages/message.ts", to: "src/stdlib/session/session.js" },
      { from: "src/backends/openai/backend.ts", to: "src/server/serve.js" },
    ]);
  });
});
