// Every error tessera throws on purpose says what kind of failure it is (core/errors/error-kind.ts), so
// surfaces such as the HTTP server act on the kind and never on a backend's classes. A class that extends
// TesseraError directly and states no kind would silently be "internal" (an HTTP 500): this test names it.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./layer-rules.js";

/** The classes that extend TesseraError directly without an own `kind`, as `path: Class`. */
function classesWithoutKind(files: readonly string[], read = (path: string) => readFileSync(path, "utf8")) {
  const missing: string[] = [];
  for (const file of files) {
    const source = read(file);
    for (const match of source.matchAll(/^export class (\w+) extends TesseraError \{$/gm)) {
      const body = source.slice(match.index + match[0].length);
      const end = body.search(/^\}$/m);
      if (!/\boverride readonly kind\b/.test(body.slice(0, end))) missing.push(`${file}: ${match[1]}`);
    }
  }
  return missing;
}

describe("the errors of src/", () => {
  it("each extends TesseraError with a kind of its own", () => {
    expect(classesWithoutKind(sourceFiles())).toEqual([]);
  });

  it("names a class that states no kind", () => {
    const sources: Record<string, string> = {
      "src/a.ts": "export class A extends TesseraError {\n  constructor() {\n    super('a');\n  }\n}\n",
      "src/b.ts": 'export class B extends TesseraError {\n  override readonly kind: ErrorKind = "busy";\n}\n',
    };
    expect(classesWithoutKind(Object.keys(sources), (path) => sources[path]!)).toEqual(["src/a.ts: A"]);
  });
});
