// Where llama.cpp's own llama-bench and llama-server are: $TESSERA_LLAMA_BENCH / $TESSERA_LLAMA_SERVER, or
// the build of `npm run bench:peers` (scripts/bench-peers.mjs) under .cache/bench-peers/<tag>/build/bin.
// "llama-server-prebuilt" is the same llama-server's code linked against node-llama-cpp's prebuilt
// libraries, the ones tessera loads (build/bin-prebuilt/): the like-for-like reference for `tessera serve`,
// where the other llama-server runs llama.cpp compiled here for this CPU.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { findPackageFolder, packageRoot } from "../support/package-folders.js";

export type PeerBinaryName = "llama-bench" | "llama-server" | "llama-server-prebuilt";

const environmentOverrides: Record<PeerBinaryName, string> = {
  "llama-bench": "TESSERA_LLAMA_BENCH",
  "llama-server": "TESSERA_LLAMA_SERVER",
  "llama-server-prebuilt": "TESSERA_LLAMA_SERVER_PREBUILT",
};

/** Where each binary lies inside a bench:peers build folder. */
const buildPaths: Record<PeerBinaryName, readonly string[]> = {
  "llama-bench": ["bin", "llama-bench"],
  "llama-server": ["bin", "llama-server"],
  "llama-server-prebuilt": ["bin-prebuilt", "llama-server"],
};

/**
 * The name of the bench:peers build folder for the llama.cpp that node-llama-cpp ships now, `<tag>-<key>`:
 * the key hashes the source bundle's tag, size and modification time. It must match what
 * scripts/llama-bundle.mjs computes (test/bench/peer-binaries.test.ts compares the two). Undefined without
 * node-llama-cpp or its bundle.
 */
export function currentPeerBuildName(
  nodeLlamaCppFolder = findPackageFolder("node-llama-cpp"),
): string | undefined {
  if (nodeLlamaCppFolder === undefined) return undefined;
  const bundlePath = join(nodeLlamaCppFolder, "llama", "gitRelease.bundle");
  const infoPath = join(nodeLlamaCppFolder, "llama", "llama.cpp.info.json");
  if (!existsSync(bundlePath) || !existsSync(infoPath)) return undefined;
  const { tag } = JSON.parse(readFileSync(infoPath, "utf8")) as { tag: string };
  const bundle = statSync(bundlePath);
  const key = createHash("sha256")
    .update(`${tag}:${bundle.size}:${bundle.mtimeMs}`)
    .digest("hex")
    .slice(0, 12);
  return `${tag}-${key}`;
}

/**
 * The binary inside a bench:peers cache: only from the completed build for `buildName` (the llama.cpp that
 * tessera loads), never from a build for another llama.cpp left by an earlier install, which would compare
 * tessera with another llama.cpp. Before, the cache's folders were tried in reverse name order, so an older
 * build whose name sorted later won. Without `buildName` (node-llama-cpp's bundle not found), the most
 * recently completed build.
 */
export function findPeerBinaryIn(
  cache: string,
  name: PeerBinaryName,
  buildName: string | undefined,
): string | null {
  if (!existsSync(cache)) return null;
  const completed = readdirSync(cache)
    .filter((build) => buildName === undefined || build === buildName)
    .filter((build) => existsSync(join(cache, build, ".complete")))
    .map((build) => ({ build, completedAt: statSync(join(cache, build, ".complete")).mtimeMs }))
    .sort((a, b) => b.completedAt - a.completedAt);
  for (const { build } of completed) {
    const candidate = join(cache, build, "build", ...buildPaths[name]);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

function peerCache(): string {
  return join(packageRoot(), ".cache", "bench-peers");
}

/** The binary's path, or null when it is not built for the llama.cpp tessera loads. */
export function findPeerBinary(name: PeerBinaryName): string | null {
  const override = process.env[environmentOverrides[name]];
  if (override) return existsSync(override) ? resolve(override) : null;
  return findPeerBinaryIn(peerCache(), name, currentPeerBuildName());
}

export function peerMissingNote(name: PeerBinaryName): string {
  const stale = existsSync(peerCache()) && readdirSync(peerCache()).length > 0;
  return (
    `${name} is not built${stale ? " for the llama.cpp that node-llama-cpp ships now (the cache holds another build)" : ""}; ` +
    `run \`npm run bench:peers\` (builds llama.cpp from node-llama-cpp's bundle, 16-50 min on a shared 2-core machine) or set ${environmentOverrides[name]}`
  );
}

/**
 * The environment of a llama.cpp peer process (llama-server, llama-bench): glibc's malloc advises
 * transparent huge pages for the large blocks it maps (`glibc.malloc.hugetlb=1`, glibc 2.35+; ignored
 * by older glibc and by other C libraries), so the peers' weights, KV cache and compute buffers are backed
 * as tessera's are by default (loadLlamaModel's `hugePages`). Without it, on a VM where a TLB miss is dear,
 * the comparison would measure paging rather than code: the 1B Q4_0 model decoded at 5-9 tokens/s on
 * small pages and at 25 on huge ones with the same libraries (docs/native.md, "Huge pages").
 */
export function peerEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const tunable = "glibc.malloc.hugetlb=1";
  const existing = base.GLIBC_TUNABLES;
  // A tunable the user set is kept, and theirs wins where both name hugetlb.
  if (existing?.includes("glibc.malloc.hugetlb=")) return { ...base };
  return { ...base, GLIBC_TUNABLES: existing ? `${tunable}:${existing}` : tunable };
}

/** The sentence the reports print under their tables: how each row's memory is backed. */
export const hugePagesNote =
  "Huge pages: tessera and the C++ greedy runner advise them for llama.cpp's own allocations (tessera's default, `hugePages`), llama-server and llama-bench get `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, node-llama-cpp asks for none (docs/native.md, \"Huge pages\").";
