// Which bench:peers build a benchmark runs: only the completed one for the llama.cpp that node-llama-cpp
// ships now. Before, the cache's folders were tried in reverse name order, so a build for another llama.cpp
// (an earlier install's) whose name sorted later was compared with tessera.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { currentPeerBuildName, findPeerBinaryIn } from "../../src/bench/peer-binaries.js";
import { packageRoot } from "../../src/support/package-folders.js";

const cache = mkdtempSync(join(tmpdir(), "tessera-peer-cache-"));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

// A build folder as scripts/bench-peers.mjs leaves it, completed at `completedAt` (seconds).
function build(
  name: string,
  options: { complete: boolean; completedAt?: number; binaries?: string[] },
): void {
  for (const binary of options.binaries ?? [
    "bin/llama-bench",
    "bin/llama-server",
    "bin-prebuilt/llama-server",
  ]) {
    const path = join(cache, name, "build", binary);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, "");
  }
  if (options.complete) {
    const marker = join(cache, name, ".complete");
    writeFileSync(marker, "");
    const at = options.completedAt ?? 1_000;
    utimesSync(marker, at, at);
  }
}

describe("finding a peer binary", () => {
  build("v0.9.0-aaaaaaaaaaaa", { complete: true, completedAt: 3_000 });
  build("v0.4.0-111111111111", { complete: true, completedAt: 1_000 });
  build("v0.4.0-222222222222", { complete: false });
  build("v0.4.0-333333333333", { complete: true, completedAt: 2_000, binaries: ["bin/llama-bench"] });

  it("takes the build for the current llama.cpp, not the one whose name sorts last", () => {
    expect(findPeerBinaryIn(cache, "llama-bench", "v0.4.0-111111111111")).toBe(
      join(cache, "v0.4.0-111111111111", "build", "bin", "llama-bench"),
    );
    expect(findPeerBinaryIn(cache, "llama-server-prebuilt", "v0.4.0-111111111111")).toBe(
      join(cache, "v0.4.0-111111111111", "build", "bin-prebuilt", "llama-server"),
    );
  });

  it("finds nothing when the current llama.cpp's build is missing or unfinished", () => {
    expect(findPeerBinaryIn(cache, "llama-bench", "v0.4.0-222222222222")).toBeNull();
    expect(findPeerBinaryIn(cache, "llama-bench", "v0.5.0-444444444444")).toBeNull();
    expect(findPeerBinaryIn(cache, "llama-server", "v0.4.0-333333333333")).toBeNull();
    expect(findPeerBinaryIn(join(cache, "absent"), "llama-bench", undefined)).toBeNull();
  });

  it("takes the most recently completed build when the current llama.cpp is unknown", () => {
    expect(findPeerBinaryIn(cache, "llama-bench", undefined)).toBe(
      join(cache, "v0.9.0-aaaaaaaaaaaa", "build", "bin", "llama-bench"),
    );
    expect(findPeerBinaryIn(cache, "llama-server", undefined)).toBe(
      join(cache, "v0.9.0-aaaaaaaaaaaa", "build", "bin", "llama-server"),
    );
  });

  it("names the build folder as scripts/bench-peers.mjs does", async () => {
    const script = (await import(join(packageRoot(), "scripts", "llama-bundle.mjs"))) as {
      locateLlamaBundle(root: string): { tag: string; bundleKey: string };
    };
    const { tag, bundleKey } = script.locateLlamaBundle(packageRoot());
    expect(currentPeerBuildName()).toBe(`${tag}-${bundleKey}`);
  });
});
