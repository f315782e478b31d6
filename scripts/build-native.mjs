#!/usr/bin/env node
// Builds native/ (the Tessera llama.cpp addon) with cmake-js, fully offline:
// - llama.cpp headers come from the git bundle that node-llama-cpp ships (same commit as its prebuilt
//   libraries, which matters because structs cross the boundary by value), extracted once into
//   native/.cache/ and reused on later runs;
// - Node-API headers come from the `node-api-headers` package (cmake-js's Node-API mode), so no
//   node headers are downloaded;
// - we link node-llama-cpp's prebuilt CPU libraries and never compile llama.cpp itself.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot as findPackage, locateLlamaBundle } from "./llama-bundle.mjs";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const nativeRoot = join(projectRoot, "native");
const cacheRoot = join(nativeRoot, ".cache");

function fail(message) {
  console.error(`tessera build:native: ${message}`);
  process.exit(1);
}

const packageRoot = (name) => findPackage(projectRoot, name);

let bundle;
try {
  bundle = locateLlamaBundle(projectRoot);
} catch (error) {
  fail(error.message);
}
const { bundlePath, bundleKey, tag } = bundle;

// The prebuilt CPU libraries for this platform, e.g. @node-llama-cpp/linux-x64/bins/linux-x64/.
const flavour = `${process.platform}-${process.arch}`;
const binariesPackage = packageRoot(`@node-llama-cpp/${flavour}`);
const librariesFolder = binariesPackage && join(binariesPackage, "bins", flavour);
if (librariesFolder === undefined || !existsSync(librariesFolder)) {
  fail(
    `node-llama-cpp's prebuilt libraries for ${flavour} were not found (looked for @node-llama-cpp/${flavour}/bins/${flavour}). ` +
      "Tessera links them instead of building llama.cpp; reinstall node-llama-cpp on a supported platform.",
  );
}
const libraryFiles = readdirSync(librariesFolder);
function findLibrary(pattern, description) {
  const found = libraryFiles.find((fileName) => pattern.test(fileName));
  if (found === undefined) fail(`no ${description} library in ${librariesFolder}.`);
  return join(librariesFolder, found);
}
const llamaLibrary = findLibrary(/^libllama\.v[\d.]+\.so$|^libllama\.so$/, "llama");
const ggmlLibrary = findLibrary(/^libggml\.v[\d.]+\.so$|^libggml\.so$/, "ggml");
const ggmlBaseLibrary = findLibrary(/^libggml-base\.so$/, "ggml-base");

// Headers: one cache folder per bundle content, so an upgraded node-llama-cpp gets fresh headers.
const headersFolder = join(cacheRoot, `llama-${tag}-${bundleKey}`);
const headersMarker = join(headersFolder, ".complete");
if (existsSync(headersMarker)) {
  console.log(`tessera build:native: reusing llama.cpp headers in ${headersFolder}`);
} else {
  console.log(`tessera build:native: extracting llama.cpp ${tag} headers from the bundle`);
  const scratch = join(cacheRoot, `scratch-${process.pid}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    const gitDir = join(scratch, "repo.git");
    const git = (...args) => execFileSync("git", args, { stdio: ["ignore", "ignore", "inherit"] });
    git("init", "--quiet", "--bare", gitDir);
    git("--git-dir", gitDir, "fetch", "--quiet", bundlePath, "HEAD:refs/heads/release");
    const archivePath = join(scratch, "headers.tar");
    git(
      "--git-dir",
      gitDir,
      "archive",
      "--format=tar",
      "-o",
      archivePath,
      "release",
      "include",
      "ggml/include",
    );
    const extracted = join(scratch, "headers");
    mkdirSync(extracted);
    execFileSync("tar", ["-xf", archivePath, "-C", extracted]);
    rmSync(headersFolder, { recursive: true, force: true });
    renameSync(extracted, headersFolder);
    writeFileSync(headersMarker, `${tag}\n`);
  } catch (error) {
    fail(`could not extract headers from ${bundlePath} (is git installed?): ${error.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// --test-hooks builds the test variant (native/src/test-hooks.h) into its own folder, so the release
// addon in native/build/ never contains the hooks; the tests that need them load it explicitly.
const testHooks = process.argv.includes("--test-hooks");
const outputFolder = join(nativeRoot, testHooks ? "build-test-hooks" : "build");

const cmakeJs = join(packageRoot("cmake-js") ?? fail("cmake-js is not installed."), "bin", "cmake-js");
const nodeAddonApi = packageRoot("node-addon-api") ?? fail("node-addon-api is not installed.");

const started = Date.now();
const result = spawnSync(
  process.execPath,
  [
    cmakeJs,
    "compile",
    "--directory",
    nativeRoot,
    "--out",
    outputFolder,
    "--config",
    "Release",
    `--CDLLAMA_INCLUDE_DIR=${join(headersFolder, "include")}`,
    `--CDGGML_INCLUDE_DIR=${join(headersFolder, "ggml", "include")}`,
    `--CDNODE_ADDON_API_DIR=${nodeAddonApi}`,
    `--CDLLAMA_LIBRARIES=${[llamaLibrary, ggmlLibrary, ggmlBaseLibrary].join(";")}`,
    `--CDLLAMA_LIBRARIES_DIR=${librariesFolder}`,
    ...(testHooks ? ["--CDTESSERA_TEST_HOOKS=ON"] : []),
    ...(process.env.TESSERA_NATIVE_VERBOSE ? [] : ["--log-level", "warn"]),
  ],
  {
    stdio: "inherit",
    cwd: projectRoot,
    env: { ...process.env, CMAKE_BUILD_PARALLEL_LEVEL: process.env.CMAKE_BUILD_PARALLEL_LEVEL ?? "2" },
  },
);
if (result.status !== 0) {
  fail(
    `cmake-js failed (exit ${result.status ?? result.signal}). It needs cmake >= 3.15 and a C++17 compiler (g++ or clang++); ` +
      "set TESSERA_NATIVE_VERBOSE=1 for the full log.",
  );
}
const addonPath = join(outputFolder, "Release", "tessera.node");
if (!existsSync(addonPath)) fail(`the build finished but ${addonPath} is missing.`);
console.log(`tessera build:native: built ${addonPath} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
