// llama-server and llama-bench run with glibc's malloc asking for huge pages, so their memory is backed
// as tessera's is (docs/native.md, "Huge pages"); a tunable the user set is kept.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { peerEnvironment } from "../../src/bench/peer-binaries.js";

describe("peerEnvironment", () => {
  it("adds glibc.malloc.hugetlb=1, keeping the rest of the environment", () => {
    const env = peerEnvironment({ PATH: "/bin", HOME: "/root" });
    expect(env).toEqual({ PATH: "/bin", HOME: "/root", GLIBC_TUNABLES: "glibc.malloc.hugetlb=1" });
  });

  it("keeps the user's other tunables, and their own hugetlb choice", () => {
    expect(peerEnvironment({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }).GLIBC_TUNABLES).toBe(
      "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=2",
    );
    expect(peerEnvironment({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=0" }).GLIBC_TUNABLES).toBe(
      "glibc.malloc.hugetlb=0",
    );
  });

  // ld.so --list-tunables prints the value each tunable took from GLIBC_TUNABLES (glibc 2.33+, x86-64);
  // an older glibc refuses the option, and there is nothing to read.
  const loader = "/lib64/ld-linux-x86-64.so.2";
  const listsTunables = existsSync(loader) && spawnSync(loader, ["--list-tunables"]).status === 0;
  it.runIf(listsTunables)("is a setting this machine's glibc reads", () => {
    const listing = execFileSync(loader, ["--list-tunables"], { env: peerEnvironment({}), encoding: "utf8" });
    expect(listing).toMatch(/glibc\.malloc\.hugetlb: 0x1\b|glibc\.malloc\.hugetlb: 1\b/);
  });
});
