// Makes a folder (and the ones above it) that output goes into, failing at once when it cannot. Node's
// `mkdir(..., { recursive: true })` loops forever under /proc (every attempt gives ENOENT, which it
// answers by creating the parent, which exists) and reports a file in the way as a bare EEXIST; so the
// folders are created here one level at a time below the nearest one that exists.
import { constants, type Stats } from "node:fs";
import { access, mkdir, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { FolderUnusableError } from "../errors/folder-unusable-error.js";

// The reasons a file-system call fails, in words (the raw "EACCES: permission denied, mkdir '/x'" says less).
const reasons: Record<string, string> = {
  ENOENT: "the folder does not exist and cannot be created",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder",
};

/** A failed file-system call's error in words; anything else by its message. */
export function describeFileSystemError(error: unknown): string {
  if (typeof error === "string") return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && reasons[code] !== undefined) return reasons[code];
  return error instanceof Error ? error.message : String(error);
}

function statOrUndefined(path: string): Promise<Stats | undefined> {
  return stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    throw error;
  });
}

// Another caller (a concurrent first use, another process) may make the same level first: that is fine
// as long as what is there now is a folder.
async function makeLevel(level: string): Promise<void> {
  try {
    await mkdir(level);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const existing = await stat(level);
    if (!existing.isDirectory()) throw new FolderUnusableError(level, `${level} is a file, not a folder`);
  }
}

/**
 * Creates `folder` and the missing folders above it, and checks it is writable. Returns the folders it
 * created (outermost first); throws `FolderUnusableError` when a file is in the way, a level cannot be
 * created, or the folder is not writable.
 */
export async function prepareFolder(folder: string): Promise<string[]> {
  const target = resolve(folder);
  const missing: string[] = [];
  let existing = target;
  let found = await statOrUndefined(existing);
  while (found === undefined) {
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
    found = await statOrUndefined(existing);
  }
  if (found !== undefined && !found.isDirectory()) {
    throw new FolderUnusableError(target, `${existing} is a file, not a folder`);
  }
  try {
    await access(existing, constants.W_OK);
    for (const level of missing) await makeLevel(level);
    await access(target, constants.W_OK);
  } catch (error) {
    if (FolderUnusableError.isInstance(error)) throw error;
    throw new FolderUnusableError(target, describeFileSystemError(error), { cause: error });
  }
  return missing;
}
