#!/usr/bin/env node
// Builds the minimal C++ greedy runner (greedy-runner.cpp) against node-llama-cpp's PREBUILT llama.cpp
// libraries, the ones tessera's addon loads, so the runner is the honest limit for tessera: same
// libraries, same CPU backend variant (picked at run time by ggml_backend_load_all_from_path), no queue.
// One g++ call, a few seconds; no cmake. The headers are those `npm run build:native` extracted from the
// same llama.cpp bundle (native/.cache/llama-<tag>-<key>/).
//
// Usage: node benchmarks/greedy-runner/build.mjs [--debug]   (prints the binary's path)
//   --debug  adds -g and frame pointers (for `perf record -g`); written beside the release binary.
// Output: .cache/greedy-runner/greedy-runner[-debug] (git-ignored), rebuilt when the source is newer.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { locateLlamaBundle, packageRoot } from "../../scripts/llama-bundle.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = resolve(here, "..", "..");
const debug = process.argv.includes("--debug");

function fail(message) {
  console.error(`greedy-runner build: ${message}`);
  process.exit(1);
}

let bundle;
try {
  bundle = locateLlamaBundle(projectRoot);
} catch (error) {
  fail(error.message);
}
const headers = join(projectRoot, "native", ".cache", `llama-${bundle.tag}-${bundle.bundleKey}`);
if (!existsSync(join(headers, "include", "llama.h")))
  fail(`llama.cpp headers are missing in ${headers}; run \`npm run build:native\` once (it extracts them).`);

const flavour = `${process.platform}-${process.arch}`;
const binaries = packageRoot(projectRoot, `@node-llama-cpp/${flavour}`);
const libraries = binaries && join(binaries, "bins", flavour);
if (libraries === undefined || !existsSync(libraries))
  fail(`node-llama-cpp's prebuilt libraries for ${flavour} were not found; reinstall node-llama-cpp.`);
const files = readdirSync(libraries);
const library = (pattern) => {
  const found = files.find((name) => pattern.test(name));
  if (found === undefined) fail(`no library matching ${pattern} in ${libraries}`);
  return join(libraries, found);
};

const source = join(here, "greedy-runner.cpp");
// The addon's own huge-page advice, so the runner's memory is backed as tessera's is (--huge-pages).
const nativeSources = join(projectRoot, "native", "src");
const hugePages = join(nativeSources, "huge-pages.cpp");
const inputs = [source, hugePages, join(nativeSources, "huge-pages.h")];
const outputFolder = join(projectRoot, ".cache", "greedy-runner");
const output = join(outputFolder, debug ? "greedy-runner-debug" : "greedy-runner");
if (existsSync(output) && inputs.every((input) => statSync(output).mtimeMs > statSync(input).mtimeMs)) {
  console.log(output);
  process.exit(0);
}
mkdirSync(outputFolder, { recursive: true });
const compiler = process.env.CXX ?? "g++";
const args = [
  "-std=c++17",
  "-O3",
  ...(debug ? ["-g", "-fno-omit-frame-pointer"] : []),
  `-I${join(headers, "include")}`,
  `-I${join(headers, "ggml", "include")}`,
  `-I${nativeSources}`,
  source,
  hugePages,
  "-o",
  output,
  library(/^libllama\.v[\d.]+\.so$|^libllama\.so$/),
  library(/^libggml\.v[\d.]+\.so$|^libggml\.so$/),
  library(/^libggml-base\.so$/),
  `-Wl,-rpath,${libraries}`,
  "-pthread",
];
const result = spawnSync(compiler, args, { stdio: ["ignore", "inherit", "inherit"] });
if (result.error !== undefined) fail(`\`${compiler}\` could not run (${result.error.message}); install g++.`);
if (result.status !== 0) fail(`\`${compiler}\` failed (exit ${result.status ?? result.signal}).`);
console.log(output);
