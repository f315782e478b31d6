import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename } from "node:path";

/**
 * The DT_NEEDED libraries of an ELF shared object that the dynamic loader cannot find, or undefined
 * when that cannot be told (no `ldd`, not Linux).
 *
 * `ldd` (glibc's loader in list mode) is used rather than an ELF parser plus our own search: it applies
 * the exact rules dlopen will (RUNPATH with $ORIGIN, LD_LIBRARY_PATH, ld.so.cache, the default folders),
 * and it names every missing library, where dlopen's error names only the first. Libraries this process
 * has already mapped count as found: dlopen matches a DT_NEEDED name against loaded sonames (the CUDA
 * fallback folder holds libggml-cuda.so alone and relies on the CPU folder's libggml-base.so).
 */
export function unresolvedSharedLibraries(path: string): readonly string[] | undefined {
  if (process.platform !== "linux") return undefined;
  let listing: string;
  try {
    listing = execFileSync("ldd", [path], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 10_000,
    });
  } catch (error) {
    // ldd exits 1 when a library is missing but still prints the list.
    const stdout = (error as { stdout?: unknown }).stdout;
    if (typeof stdout !== "string" || stdout === "") return undefined;
    listing = stdout;
  }
  const loaded = mappedLibraryNames();
  const missing: string[] = [];
  for (const line of listing.split("\n")) {
    const match = /^\s*(\S+)\s+=>\s+not found/.exec(line);
    if (match?.[1] !== undefined && !loaded.has(match[1])) missing.push(match[1]);
  }
  return missing;
}

/** File names of the shared objects mapped into this process (from /proc/self/maps). */
export function mappedLibraryNames(): ReadonlySet<string> {
  try {
    const names = new Set<string>();
    for (const line of readFileSync("/proc/self/maps", "utf8").split("\n")) {
      const path = line.split(/\s+/)[5];
      if (path?.startsWith("/") && path.includes(".so")) names.add(basename(path));
    }
    return names;
  } catch {
    return new Set();
  }
}

/** Full paths of the mapped shared objects whose file name matches. */
export function mappedLibraryPaths(pattern: RegExp): readonly string[] {
  try {
    const paths = new Set<string>();
    for (const line of readFileSync("/proc/self/maps", "utf8").split("\n")) {
      const path = line.split(/\s+/)[5];
      if (path?.startsWith("/") && pattern.test(basename(path))) paths.add(path);
    }
    return [...paths];
  } catch {
    return [];
  }
}
