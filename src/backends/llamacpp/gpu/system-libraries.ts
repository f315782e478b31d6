import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the dynamic loader would find a library (LD_LIBRARY_PATH first, then ld.so.cache), or null. */
export function findSystemLibrary(name: string): string | null {
  for (const folder of (process.env.LD_LIBRARY_PATH ?? "").split(":")) {
    if (folder !== "" && existsSync(join(folder, name))) return join(folder, name);
  }
  const cache = loaderCache();
  return cache.get(name) ?? null;
}

let cachedLoaderCache: ReadonlyMap<string, string> | undefined;

/** `ldconfig -p`: the libraries the loader knows by name (first path for each). */
function loaderCache(): ReadonlyMap<string, string> {
  if (cachedLoaderCache !== undefined) return cachedLoaderCache;
  const entries = new Map<string, string>();
  for (const ldconfig of ["ldconfig", "/sbin/ldconfig", "/usr/sbin/ldconfig"]) {
    try {
      const listing = execFileSync(ldconfig, ["-p"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      for (const line of listing.split("\n")) {
        const match = /^\s*(\S+)\s.*=>\s*(\S+)\s*$/.exec(line);
        if (match?.[1] !== undefined && match[2] !== undefined && !entries.has(match[1])) {
          entries.set(match[1], match[2]);
        }
      }
      break;
    } catch {}
  }
  cachedLoaderCache = entries;
  return entries;
}

/** The first line of /proc/driver/nvidia/version (the kernel driver), or null without one. */
export function nvidiaKernelDriver(): string | null {
  try {
    return readFileSync("/proc/driver/nvidia/version", "utf8").split("\n")[0]?.trim() ?? null;
  } catch {
    return null;
  }
}

/** `nvidia-smi`'s one line per GPU (name, driver, memory), or why there is none. */
export function nvidiaSmi(): { readonly found: boolean; readonly lines: readonly string[] } {
  try {
    const output = execFileSync(
      "nvidia-smi",
      ["--query-gpu=name,driver_version,compute_cap,memory.total,memory.free", "--format=csv,noheader"],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 15_000 },
    );
    return { found: true, lines: output.split("\n").filter((line) => line.trim() !== "") };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") return { found: false, lines: [] };
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    return { found: true, lines: [`failed: ${stderr || (error as Error).message}`] };
  }
}

/** Vulkan driver manifests (ICDs) in the standard folders. */
export function vulkanDrivers(): readonly string[] {
  const found: string[] = [];
  for (const folder of ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d"]) {
    try {
      for (const name of readdirSync(folder)) if (name.endsWith(".json")) found.push(join(folder, name));
    } catch {}
  }
  return found;
}
