// Where node-llama-cpp keeps llama.cpp: its package folder, the git bundle of the matching llama.cpp
// source, the release tag, and a key that changes with the bundle (so caches follow an upgrade).
// Shared by build-native.mjs (headers) and bench-peers.mjs (the whole source).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

// Walks up node_modules folders like Node does; require.resolve cannot be used because some of these
// packages do not export their package.json.
export function packageRoot(projectRoot, name) {
  for (let folder = projectRoot; ; folder = dirname(folder)) {
    const candidate = join(folder, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(folder) === folder) return undefined;
  }
}

/** Returns { nodeLlamaCppRoot, bundlePath, tag, bundleKey } or throws an Error saying what is missing. */
export function locateLlamaBundle(projectRoot) {
  const nodeLlamaCppRoot = packageRoot(projectRoot, "node-llama-cpp");
  if (nodeLlamaCppRoot === undefined)
    throw new Error("node-llama-cpp is not installed; run `npm install` first.");
  const bundlePath = join(nodeLlamaCppRoot, "llama", "gitRelease.bundle");
  if (!existsSync(bundlePath)) {
    throw new Error(`the llama.cpp source bundle is missing at ${bundlePath}; run \`npm install\`.`);
  }
  const { tag } = JSON.parse(readFileSync(join(nodeLlamaCppRoot, "llama", "llama.cpp.info.json"), "utf8"));
  const bundleStat = statSync(bundlePath);
  const bundleKey = createHash("sha256")
    .update(`${tag}:${bundleStat.size}:${bundleStat.mtimeMs}`)
    .digest("hex")
    .slice(0, 12);
  return { nodeLlamaCppRoot, bundlePath, tag, bundleKey };
}
