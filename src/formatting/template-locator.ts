import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Lower-case and drop `-./:,` so "Llama-3.2-1B" and "llama3.2" compare as "llama321b" and "llama32". */
export function simplifyModelName(name: string): string {
  return name.toLowerCase().replace(/[-./:,]/g, "");
}

export interface LocatedTemplate {
  root: string;
  /** Path relative to the root, with forward slashes (what the nunjucks loader takes). */
  relativePath: string;
  /** How many model-family folders deep it sits; 0 for `default/` or the root itself. */
  depth: number;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The best `<templateName>.njk` under one root for a model. Family folders are entered only when
 * their simplified name appears in the simplified model id; the deepest match wins (ties: the
 * longer folder name, then alphabetical order), then `default/`, then the root itself.
 */
export function locateTemplate(root: string, templateName: string, modelId: string): LocatedTemplate | null {
  if (!isDirectory(root)) return null;
  const fileName = `${templateName}.njk`;
  const model = simplifyModelName(modelId);
  let best: { path: string; depth: number; specificity: string } | null = null;

  const visit = (folder: string, depth: number, specificity: string): void => {
    const candidate = join(folder, fileName);
    if (depth > 0 && existsSync(candidate)) {
      const better =
        best === null ||
        depth > best.depth ||
        (depth === best.depth && specificity.length > best.specificity.length) ||
        (depth === best.depth && specificity.length === best.specificity.length && candidate < best.path);
      if (better) best = { path: candidate, depth, specificity };
    }
    for (const entry of readdirSync(folder).sort()) {
      const path = join(folder, entry);
      if (entry.toLowerCase() === "default" || !isDirectory(path)) continue;
      const simplified = simplifyModelName(entry);
      if (simplified !== "" && model.includes(simplified)) visit(path, depth + 1, specificity + simplified);
    }
  };
  visit(root, 0, "");

  const found = best as { path: string; depth: number } | null;
  const fallbacks = [join(root, "default", fileName), join(root, fileName)];
  const path = found?.path ?? fallbacks.find((fallback) => existsSync(fallback));
  if (path === undefined) return null;
  return { root, relativePath: relative(root, path).split(sep).join("/"), depth: found?.depth ?? 0 };
}
