// "Generation" names one thing: the metadata of the user's generation (`GenerationMetadata`, read as
// `thunk.generation`), plus the errors that say the user's generation was cancelled or aborted. Issue 13
// renamed the six other things the word stood for (the addon's decode job, a backend's stream run, a
// prepared request, the server's completion plan, a preset being synthesized, a fuzz request; see
// docs/migration.md). This test names any new export or file that brings the word back for something else.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./layer-rules.js";

const allowedExports = new Set([
  "GenerationMetadata",
  "GenerationTimings",
  "GenerationCancelledError",
  "GenerationAbortedError",
  // Named after the public Context method `viewForGeneration()`: the user's generation has nothing to read.
  "NoGenerationViewError",
  // Deprecated aliases of renamed public exports, kept for one release.
  "NativeGenerationError",
]);

const allowedFiles = new Set([
  "generation-metadata.ts",
  "generation-cancelled-error.ts",
  "generation-aborted-error.ts",
  "no-generation-view-error.ts",
]);

/** Exports and files under src/ whose names use "generation" for something outside the lists above. */
function strayGenerationNames(
  files: readonly string[],
  read = (path: string) => readFileSync(path, "utf8"),
): string[] {
  const stray: string[] = [];
  for (const file of files) {
    if (/generation/i.test(basename(file)) && !allowedFiles.has(basename(file))) stray.push(file);
    const exported =
      /^export (?:declare )?(?:abstract )?(?:async )?(?:class|interface|type|function\*?|const|let|enum) (\w+)/gm;
    for (const match of read(file).matchAll(exported)) {
      const name = match[1]!;
      if (/generation/i.test(name) && !allowedExports.has(name)) stray.push(`${file}: ${name}`);
    }
  }
  return stray;
}

describe('the word "generation" in src/', () => {
  it("names only the metadata and the user's cancelled or aborted generation", () => {
    expect(strayGenerationNames(sourceFiles())).toEqual([]);
  });

  it("names an export or a file that uses it for something else", () => {
    const sources: Record<string, string> = {
      "src/a/native-generation.ts": "export interface NativeGeneration {}\n",
      "src/b/generation-metadata.ts":
        "export class GenerationMetadata {}\nexport const generationPlan = 1;\n",
    };
    expect(strayGenerationNames(Object.keys(sources), (path) => sources[path]!)).toEqual([
      "src/a/native-generation.ts",
      "src/a/native-generation.ts: NativeGeneration",
      "src/b/generation-metadata.ts: generationPlan",
    ]);
  });
});
