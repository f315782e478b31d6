// Checks where an --out file goes before any work is done, so a bad path fails at once with one line
// naming the flag, not after a benchmark or a model generation ran.
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { FolderUnusableError } from "../core/errors/folder-unusable-error.js";
import { prepareFolder } from "../core/files/prepare-folder.js";
import { OutputWriteError } from "./errors/output-write-error.js";

/**
 * Makes `folder` (and the folders above it) for the files `flag` names, refusing the file-system root.
 * Returns the folders it created, outermost first.
 */
export async function prepareOutputDirectory(folder: string, flag: string): Promise<string[]> {
  const target = resolve(folder);
  if (dirname(target) === target) {
    throw new OutputWriteError(target, "it is the file-system root", flag);
  }
  try {
    return await prepareFolder(target);
  } catch (error) {
    if (FolderUnusableError.isInstance(error)) throw new OutputWriteError(target, error.reason, flag);
    throw error;
  }
}

/**
 * Checks an --out file path up front: it must not be a folder or the file-system root, and the folders
 * above it are created (one level at a time) and must be writable. Returns the folders it created.
 */
export async function prepareOutputFolder(path: string, flag: string): Promise<string[]> {
  const target = resolve(path);
  if (dirname(target) === target) throw new OutputWriteError(target, "it is the file-system root", flag);
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory() === true) throw new OutputWriteError(target, "it is a folder", flag);
  try {
    return await prepareFolder(dirname(target));
  } catch (error) {
    if (FolderUnusableError.isInstance(error)) throw new OutputWriteError(target, error.reason, flag);
    throw error;
  }
}

/** Says on stderr which folder was made for `flag` (the outermost one), so a typo in a path shows. */
export function reportCreatedFolders(created: readonly string[], flag: string): void {
  if (created.length > 0) process.stderr.write(`Created the folder ${created[0]} for ${flag}.\n`);
}
