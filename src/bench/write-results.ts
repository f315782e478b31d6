// Writes one benchmark's results as <name>.json (everything, for scripts), <name>.md and <name>.svg.
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { prepareFolder } from "../core/files/prepare-folder.js";

export interface WrittenResults {
  json: string;
  markdown: string;
  svg: string | null;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

export async function writeResults(
  folder: string,
  name: string,
  result: unknown,
  markdown: string,
  svg: string | null,
): Promise<WrittenResults> {
  // Not mkdir({ recursive: true }): under /proc it never returns (see prepareFolder).
  await prepareFolder(folder);
  const paths = {
    json: join(folder, `${name}.json`),
    markdown: join(folder, `${name}.md`),
    svg: svg === null ? null : join(folder, `${name}.svg`),
  };
  await writeAtomically(paths.json, `${JSON.stringify(result, null, 2)}\n`);
  await writeAtomically(paths.markdown, markdown);
  if (svg !== null && paths.svg !== null) await writeAtomically(paths.svg, svg);
  return paths;
}
