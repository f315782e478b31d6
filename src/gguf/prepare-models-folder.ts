// The models folder is made with core's prepareFolder, not mkdir({ recursive: true }): that never returns
// under /proc and reports a file in the way as a bare EEXIST. Failures name what chose the folder.
import { FolderUnusableError } from "../core/errors/folder-unusable-error.js";
import { prepareFolder } from "../core/files/prepare-folder.js";
import { GgufModelsFolderError } from "./errors/gguf-models-folder-error.js";

/** Makes `folder` for generated models; `setting` names what chose it, for the error. */
export async function prepareModelsFolder(folder: string, setting: string): Promise<void> {
  try {
    await prepareFolder(folder);
  } catch (error) {
    if (!FolderUnusableError.isInstance(error)) throw error;
    throw new GgufModelsFolderError({ folder: error.folder, reason: error.reason, setting, cause: error });
  }
}
