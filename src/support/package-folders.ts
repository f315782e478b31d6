// Where tessera's own package is installed, and where the packages it depends on are, for files that ship
// beside the code (the native addon, node-llama-cpp's prebuilt libraries and llama.cpp bundle, benchmark
// peers). One place, so a move of this file (src/ and dist/ alike) changes one path.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package root (the folder holding tessera's package.json), from src/support/ or dist/support/. */
export function packageRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
}

/** node_modules/<name> from the package root upwards, as Node resolves it; undefined when not installed. */
export function findPackageFolder(name: string): string | undefined {
  for (let folder = packageRoot(); ; folder = dirname(folder)) {
    const candidate = join(folder, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(folder) === folder) return undefined;
  }
}
