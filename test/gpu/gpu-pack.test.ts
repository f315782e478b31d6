// scripts/gpu-pack.mjs for real: the upload for the GPU machine fits its 64 MiB, carries a Node that
// runs, the run-time node_modules without node-llama-cpp's prebuilt GPU packages, and llama.cpp sources
// with ggml-cuda and llama-bench. Slow (xz of ~90 MB on a shared 2-core VM); the Node binary is cached.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const listing = (archive: string): string[] =>
  execFileSync("sh", ["-c", `xz -dc "${archive}" | tar -t`], { encoding: "utf8", maxBuffer: 64 << 20 }).split(
    "\n",
  );

describe("scripts/gpu-pack.mjs", () => {
  let folder: string;
  let output: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "tessera-gpu-pack-"));
    const run = spawnSync("nice", ["-n", "10", process.execPath, "scripts/gpu-pack.mjs"], {
      encoding: "utf8",
      env: { ...process.env, GPU_PACK_OUT: folder },
    });
    output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
  }, 600_000);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("prints the total and stays under the 64 MiB the GPU machine takes", () => {
    const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8"));
    const files = ["node.xz", "runtime.tar.xz", "llama.tar.xz"];
    const total = files.reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
    expect(manifest.totalBytes).toBe(total);
    expect(total).toBeLessThan(64 * 1024 * 1024);
    expect(output).toMatch(/total\s+[\d.]+ MiB of 64\.0 MiB allowed/);
    expect(manifest.node).toBe(process.versions.node);
  });

  it("carries a Node binary of this version that runs", () => {
    const node = join(folder, "node");
    execFileSync("sh", ["-c", `xz -dc "${join(folder, "node.xz")}" > "${node}" && chmod +x "${node}"`]);
    expect(execFileSync(node, ["--version"], { encoding: "utf8" }).trim()).toBe(`v${process.versions.node}`);
  });

  it("carries dist/, the run-time node_modules and the vocabularies, not node-llama-cpp", () => {
    const files = listing(join(folder, "runtime.tar.xz"));
    for (const expected of [
      "dist/cli/main.js",
      "package.json",
      "node_modules/node-addon-api/napi.h",
      "node_modules/node-api-headers/include/node_api.h",
      "node_modules/commander/package.json",
      "models/.cache/vocab/ggml-vocab-llama-bpe.gguf",
    ]) {
      expect(files).toContain(expected);
    }
    expect(files.some((path) => path.startsWith("node_modules/@node-llama-cpp/"))).toBe(false);
    expect(files.some((path) => path.startsWith("node_modules/node-llama-cpp/"))).toBe(false);
  });

  it("carries llama.cpp's sources for ggml-cuda, libllama and llama-bench only", () => {
    const files = listing(join(folder, "llama.tar.xz"));
    for (const expected of [
      "llama/CMakeLists.txt",
      "llama/ggml/src/ggml-cuda/CMakeLists.txt",
      "llama/ggml/src/ggml-cpu/CMakeLists.txt",
      "llama/src/llama.cpp",
      "llama/include/llama.h",
      "llama/tools/llama-bench/llama-bench.cpp",
      "llama/TESSERA-SOURCE.txt",
    ]) {
      expect(files).toContain(expected);
    }
    expect(files.some((path) => path.startsWith("llama/ggml/src/ggml-vulkan/"))).toBe(false);
    expect(files.some((path) => path.startsWith("llama/tools/server/"))).toBe(false);
  });
});
