// The code examples of README.md and docs/*.md, run as a reader would run them: the block pasted into
// a .mjs file and started with plain `node` (no vitest transform, which accepted syntax that Node 20
// rejects, such as `await using`). The file sits in the git-ignored .cache/ folder inside the package,
// so `import … from "tessera"` resolves to the built package (dist/) by package self-reference.
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface MarkdownExample {
  /** `README.md` or `docs/<name>.md`. */
  readonly file: string;
  /** Line of the opening fence, 1-based. */
  readonly line: number;
  /** The text of the nearest heading above the block, without its `#`s ("" before any heading). */
  readonly heading: string;
  readonly code: string;
}

const runnableLanguages = new Set(["js", "javascript", "mjs", "ts", "typescript"]);

/** Every JavaScript/TypeScript code block of README.md and docs/*.md, in order. */
export function markdownExamples(): MarkdownExample[] {
  const files = [
    "README.md",
    ...readdirSync("docs")
      .filter((name) => name.endsWith(".md"))
      .map((name) => join("docs", name)),
  ];
  const examples: MarkdownExample[] = [];
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n");
    let open: { line: number; language: string; body: string[] } | null = null;
    let heading = "";
    for (const [index, text] of lines.entries()) {
      const fence = /^```(\S*)\s*$/.exec(text);
      if (fence === null) {
        if (open === null) heading = /^#{1,6}\s+(.*)$/.exec(text)?.[1]?.trim() ?? heading;
        else open.body.push(text);
      } else if (open === null) open = { line: index + 1, language: fence[1] ?? "", body: [] };
      else {
        if (runnableLanguages.has(open.language)) {
          examples.push({ file, line: open.line, heading, code: open.body.join("\n") });
        }
        open = null;
      }
    }
  }
  return examples;
}

/** Where an example must be: its file and, optionally, the heading it sits under. */
export interface MarkdownExampleLocation {
  /** `README.md` or `docs/<name>.md`. */
  readonly file: string;
  readonly heading?: string;
}

/**
 * The one example whose code contains `marker` (in `location`'s file, under its heading, when given);
 * throws, naming the marker and the place, when none or several do. Tests that pin the location fail
 * when a block moves to another page, so the page that documents it keeps a test.
 */
export function markdownExample(marker: string, location?: MarkdownExampleLocation): MarkdownExample {
  const found = markdownExamples().filter(
    (example) =>
      example.code.includes(marker) &&
      (location === undefined || example.file === location.file) &&
      (location?.heading === undefined || example.heading === location.heading),
  );
  if (found.length !== 1) {
    const where =
      location === undefined
        ? "README/docs"
        : `${location.file}${location.heading === undefined ? "" : ` under "${location.heading}"`}`;
    throw new Error(
      `expected one ${where} example containing ${JSON.stringify(marker)}, found ${found.length}`,
    );
  }
  return found[0]!;
}

export interface ExampleRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function examplePath(example: MarkdownExample): string {
  const folder = resolve(".cache", "readme-examples");
  mkdirSync(folder, { recursive: true });
  const name = `${example.file.replaceAll(/[^a-zA-Z0-9]+/g, "-")}-line-${example.line}.mjs`;
  const path = join(folder, name);
  writeFileSync(path, `${example.code}\n`);
  return path;
}

/** Runs the example with plain `node` (run `npm run build` first: "tessera" is dist/). */
export async function runMarkdownExample(example: MarkdownExample, timeoutMs = 120_000): Promise<ExampleRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [examplePath(example)], {
      encoding: "utf8",
      timeout: timeoutMs,
      env: { ...process.env, NO_COLOR: "1" },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

/** Parses the example with plain `node --check`: a syntax error (TypeScript-only syntax too) fails. */
export async function checkMarkdownExampleSyntax(example: MarkdownExample): Promise<ExampleRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ["--check", examplePath(example)], {
      encoding: "utf8",
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}
