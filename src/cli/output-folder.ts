// Makes the folder an --out file goes into, failing at once with one line when it cannot. Node's
// `mkdir(..., { recursive: true })` loops forever under /proc (every attempt gives ENOENT, which it
// answers by creating the parent, which exists) and reports a file in the way as a bare EEXIST; so
// the folders are created here one level at a time below the nearest one that exists.
import { constants, type Stats } from "node:fs";
import { access, mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { OutputWriteError } from "./errors/output-write-error.js";

function statOrUndefined(path: string): Promise<Stats | undefined> {
  return stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  });
}

/** Creates the folders above `path` (an absolute file path) and checks the last one is writable. */
export async function prepareOutputFolder(path: string, flag: string): Promise<void> {
  const missing: string[] = [];
  let folder = dirname(path);
  let found = await statOrUndefined(folder);
  while (found === undefined) {
    missing.unshift(folder);
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
    found = await statOrUndefined(folder);
  }
  if (found !== undefined && !found.isDirectory()) {
    throw new OutputWriteError(path, `${folder} is a file, not a folder`, flag);
  }
  try {
    await access(folder, constants.W_OK);
    for (const level of missing) await mkdir(level);
    await access(dirname(path), constants.W_OK);
  } catch (error) {
    throw new OutputWriteError(path, error, flag);
  }
}
