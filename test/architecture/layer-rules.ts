// The layer directions of ../shared/design/architecture.md, as data: which src/ areas each area may import.
// core/ ← messages/, formatting/, gguf/ ← backends/* ← stdlib/ ← server/, cli/. The areas outside the
// diagram sit where their imports put them: testing/ (the scripted backend) and training/ beside the
// backends, bench/ beside stdlib, reliability/ with the entry points. support/ sits below everything
// that may do I/O (core/ may not): package-folder lookups that gguf/, the backends and bench/ share.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const layer1 = ["core", "messages", "gguf", "support"];
const backends = ["backends/llamacpp", "backends/openai"];

/** Area → the other areas its files may import. An area missing here fails the test: place it first. */
export const allowedImports: Readonly<Record<string, readonly string[]>> = {
  core: [],
  support: [],
  messages: ["core"],
  gguf: ["core", "support"],
  formatting: ["core", "messages"],
  testing: ["core"],
  "backends/llamacpp": [...layer1, "formatting"],
  "backends/openai": [...layer1, "formatting"],
  training: [...layer1, "backends/llamacpp"],
  stdlib: [...layer1, "formatting", ...backends],
  // bench/ reads training/'s checkable tasks (the strategy benchmark runs tiny-arith on the task it was
  // trained on); training/ sits beside the backends, below bench/.
  bench: [...layer1, "formatting", ...backends, "stdlib", "training"],
  // inspector/ (issue 13 moved it out of cli/: the library exports it) sits beside bench: its live
  // server forks KV cells, which only the local backend has, so it may import backends/llamacpp.
  inspector: [...layer1, "formatting", ...backends, "stdlib"],
  // server/ speaks only core's Backend contract (issue 13): it may not import backends/llamacpp. The
  // OpenAI backend's wire extension names are shared by both ends of the protocol.
  server: [...layer1, "formatting", "backends/openai", "stdlib"],
  reliability: [...layer1, "formatting", ...backends, "stdlib", "server"],
  cli: [
    ...layer1,
    "formatting",
    ...backends,
    "stdlib",
    "server",
    "bench",
    "inspector",
    "reliability",
    "training",
    "testing",
  ],
  // src/index.ts is the package's public surface: it re-exports every layer.
  index: ["*"],
};

export interface ImportEdge {
  /** The importing file, relative to the repository root (`src/server/x.ts`). */
  readonly from: string;
  /** The imported file, relative to the repository root, with the `.js` of the specifier. */
  readonly to: string;
}

/** `src/backends/llamacpp/x.ts` → `backends/llamacpp`; `src/core/a/b.ts` → `core`; `src/index.ts` → `index`. */
export function areaOf(path: string): string {
  const parts = path.split("/").slice(1);
  if (parts.length === 1) return parts[0]!.replace(/\.[jt]s$/, "");
  return parts[0] === "backends" ? `backends/${parts[1]}` : parts[0]!;
}

// TypeScript 7 (this repository's compiler) has no JavaScript API to ask for a file's imports, so they are
// read with patterns: `… from "x"` (import, import type, export … from), `import "x"` and `import("x")`.
// Comments are removed first, so an import named in a comment does not count.
const specifierPatterns = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
];

/** Every relative import (static, `export … from`, `import type`, dynamic `import()`) of one source text. */
export function importEdges(from: string, source: string): ImportEdge[] {
  const code = source.replaceAll(/\/\*[\s\S]*?\*\//g, "").replaceAll(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
  const specifiers = specifierPatterns.flatMap((pattern) =>
    [...code.matchAll(pattern)].map((match) => match[1]!),
  );
  return specifiers
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => ({ from, to: normalize(join(dirname(from), specifier)) }));
}

/** Every .ts file under src/, relative to the repository root. */
export function sourceFiles(root = "src"): string[] {
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => relative(".", join(root, name)));
}

/** The edges that cross areas against `allowedImports`, and the areas that have no rule. */
export function layerViolations(
  files: readonly string[],
  read = (path: string) => readFileSync(path, "utf8"),
) {
  const violations: ImportEdge[] = [];
  const unplaced = new Set<string>();
  for (const file of files) {
    const area = areaOf(file);
    const allowed = allowedImports[area];
    if (allowed === undefined) {
      unplaced.add(area);
      continue;
    }
    for (const edge of importEdges(file, read(file))) {
      const target = areaOf(edge.to);
      if (target !== area && !allowed.includes("*") && !allowed.includes(target)) violations.push(edge);
    }
  }
  return { violations, unplaced: [...unplaced] };
}
