#!/usr/bin/env node
// Builds the addon with AddressSanitizer and UndefinedBehaviorSanitizer into native/build-sanitize/,
// linked against a llama.cpp that is instrumented too. node-llama-cpp's prebuilt libraries are not: a
// use-after-free inside llama_decode on a context we freed too early would go unseen with them, and
// that is exactly the kind of bug the native core has had (issue 12, defect 2).
//
// Opt-in and never part of `npm run build:native`: the instrumented llama.cpp (libllama, libggml,
// libggml-base and the CPU backend libggml-cpu.so, shared, no tools) takes about 10 minutes on 2 cores.
// It is built from node-llama-cpp's git bundle, fully offline, into .cache/sanitize/<tag>-<key>/
// (git-ignored) and reused while the bundle and the flags are unchanged; the addon itself is rebuilt on
// every run (cmake only recompiles what changed).
//
// Usage: node scripts/build-native-sanitize.mjs [--jobs N]
// Prints the two folders the test run needs as JSON on the last line of stdout:
// { "addon": ".../tessera.node", "libraries": "<instrumented llama.cpp folder>" }.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot as findPackage, locateLlamaBundle } from "./llama-bundle.mjs";
import { sanitizerCompileFlags, sanitizerLinkFlags } from "./sanitizer-flags.mjs";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const nativeRoot = join(projectRoot, "native");
const addonBuildFolder = join(nativeRoot, "build-sanitize");

function fail(message) {
  console.error(`tessera build:native:sanitize: ${message}`);
  process.exit(1);
}

function argumentValue(name) {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const jobs = Number(argumentValue("--jobs") ?? process.env.TESSERA_SANITIZE_JOBS ?? "2");
if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs must be a positive integer, got ${jobs}.`);

if (process.platform !== "linux") {
  fail(
    `the sanitizer build supports Linux only (this is ${process.platform}); it preloads gcc's libasan.so.`,
  );
}
for (const tool of ["git", "cmake", "gcc", "g++"]) {
  const probe = spawnSync(tool, ["--version"], { stdio: "ignore" });
  if (probe.status !== 0) fail(`\`${tool}\` was not found on PATH; the sanitizer build needs it.`);
}

let bundle;
try {
  bundle = locateLlamaBundle(projectRoot);
} catch (error) {
  fail(error.message);
}
const { bundlePath, bundleKey, tag, nodeLlamaCppRoot } = bundle;

const cacheFolder = join(projectRoot, ".cache", "sanitize", `${tag}-${bundleKey}`);
const sourceFolder = join(cacheFolder, "source");
const llamaBuildFolder = join(cacheFolder, "build");
// llama.cpp puts every shared library and backend module in <build>/bin.
const librariesFolder = join(llamaBuildFolder, "bin");
const doneMarker = join(cacheFolder, ".complete");

// The same patches node-llama-cpp applies before building its prebuilt libraries, so the instrumented
// llama.cpp behaves like the one tessera ships with (a patch already in the source is skipped).
const patchFolder = join(nodeLlamaCppRoot, "llama", "patches");

const llamaConfigureOptions = [
  // Release's -O3 would override -O1; the flags come whole from CMAKE_<LANG>_FLAGS_RELWITHDEBINFO.
  "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
  `-DCMAKE_C_FLAGS_RELWITHDEBINFO=${sanitizerCompileFlags.join(" ")}`,
  `-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${sanitizerCompileFlags.join(" ")}`,
  `-DCMAKE_SHARED_LINKER_FLAGS_RELWITHDEBINFO=${sanitizerLinkFlags.join(" ")}`,
  `-DCMAKE_MODULE_LINKER_FLAGS_RELWITHDEBINFO=${sanitizerLinkFlags.join(" ")}`,
  `-DCMAKE_EXE_LINKER_FLAGS_RELWITHDEBINFO=${sanitizerLinkFlags.join(" ")}`,
  "-DBUILD_SHARED_LIBS=ON",
  // Backends as loadable modules, as in node-llama-cpp's prebuilt libraries: the addon's loadBackends()
  // then runs the same ggml_backend_load_all_from_path() path; it falls back to the plain libggml-cpu.so.
  "-DGGML_BACKEND_DL=ON",
  "-DGGML_CPU_ALL_VARIANTS=OFF",
  // Without GGML_NATIVE, ggml targets Haswell (AVX2, FMA, F16C, BMI2), like the prebuilt haswell variant;
  // -march=native could compile in AMX, which many VMs list in cpuinfo but do not enable (SIGILL).
  "-DGGML_NATIVE=OFF",
  // ggml's own thread pool, as in the prebuilt libraries. (OpenMP would work under ASan too, but libgomp is
  // not instrumented and its worker threads would not be the ones production runs.)
  "-DGGML_OPENMP=OFF",
  "-DGGML_CUDA=OFF",
  "-DGGML_VULKAN=OFF",
  "-DGGML_METAL=OFF",
  "-DGGML_BLAS=OFF",
  "-DLLAMA_CURL=OFF",
  "-DLLAMA_OPENSSL=OFF",
  "-DLLAMA_BUILD_COMMON=OFF",
  "-DLLAMA_BUILD_TESTS=OFF",
  "-DLLAMA_BUILD_EXAMPLES=OFF",
  "-DLLAMA_BUILD_TOOLS=OFF",
  "-DLLAMA_BUILD_SERVER=OFF",
  "-DLLAMA_BUILD_APP=OFF",
];
const llamaTargets = ["llama", "ggml", "ggml-base", "ggml-cpu"];
const configurationKey = JSON.stringify(llamaConfigureOptions);

// The long compile runs at low priority so that it does not starve tests and editors on a shared machine.
function run(command, args, options = {}) {
  const started = Date.now();
  const result = spawnSync("nice", ["-n", "15", command, ...args], {
    stdio: ["ignore", "inherit", "inherit"],
    ...options,
  });
  if (result.status !== 0) {
    fail(`\`${command} ${args.join(" ")}\` failed (exit ${result.status ?? result.signal}).`);
  }
  return (Date.now() - started) / 1000;
}

function llamaLibrary(name) {
  const path = join(librariesFolder, name);
  if (!existsSync(path)) fail(`the llama.cpp build finished but ${path} is missing.`);
  return path;
}

function buildInstrumentedLlama() {
  if (existsSync(doneMarker) && readFileSync(doneMarker, "utf8").trim() === configurationKey) {
    console.error(`tessera build:native:sanitize: reusing the instrumented llama.cpp in ${librariesFolder}`);
    return;
  }
  if (!existsSync(join(sourceFolder, "CMakeLists.txt"))) {
    console.error(
      `tessera build:native:sanitize: checking out llama.cpp ${tag} from the bundle into ${sourceFolder}`,
    );
    rmSync(sourceFolder, { recursive: true, force: true });
    mkdirSync(cacheFolder, { recursive: true });
    execFileSync("git", ["-c", "advice.detachedHead=false", "clone", "--quiet", bundlePath, sourceFolder], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const patches = existsSync(patchFolder)
      ? execFileSync("ls", [patchFolder], { encoding: "utf8" })
          .split("\n")
          .filter((name) => name.endsWith(".diff"))
      : [];
    for (const patch of patches) {
      const patchPath = join(patchFolder, patch);
      const check = spawnSync("git", ["apply", "--check", patchPath], { cwd: sourceFolder, stdio: "ignore" });
      if (check.status === 0) {
        execFileSync("git", ["apply", patchPath], {
          cwd: sourceFolder,
          stdio: ["ignore", "ignore", "inherit"],
        });
        console.error(`tessera build:native:sanitize: applied node-llama-cpp's ${patch}`);
      }
    }
  }
  console.error(
    `tessera build:native:sanitize: building the instrumented llama.cpp (${jobs} jobs, nice 15; about 10 minutes on 2 cores)`,
  );
  run("cmake", ["-S", sourceFolder, "-B", llamaBuildFolder, "-G", "Ninja", ...llamaConfigureOptions], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const seconds = run("cmake", [
    "--build",
    llamaBuildFolder,
    "-j",
    String(jobs),
    "--target",
    ...llamaTargets,
  ]);
  for (const name of ["libllama.so", "libggml.so", "libggml-base.so", "libggml-cpu.so"]) llamaLibrary(name);
  writeFileSync(doneMarker, `${configurationKey}\n`);
  console.error(`tessera build:native:sanitize: built the instrumented llama.cpp in ${seconds.toFixed(0)} s`);
}

function buildSanitizedAddon() {
  const cmakeJs = join(
    findPackage(projectRoot, "cmake-js") ?? fail("cmake-js is not installed."),
    "bin",
    "cmake-js",
  );
  const nodeAddonApi = findPackage(projectRoot, "node-addon-api") ?? fail("node-addon-api is not installed.");
  // native/CMakeLists.txt adds -O3 as a target option, after these flags, so the addon is optimised more
  // than llama.cpp; ASan and UBSan still see everything, only stack frames may be inlined (shown by -g).
  // cmake-js sets CMAKE_CXX_FLAGS itself (after our -D options), hence the _RELEASE variants.
  const folderOptions = ["--directory", nativeRoot, "--out", addonBuildFolder, "--config", "Release"];
  const logOptions = process.env.TESSERA_NATIVE_VERBOSE ? [] : ["--log-level", "warn"];
  const cmakeOptions = [
    `--CDCMAKE_CXX_FLAGS_RELEASE=${sanitizerCompileFlags.join(" ")}`,
    `--CDCMAKE_SHARED_LINKER_FLAGS_RELEASE=${sanitizerLinkFlags.join(" ")}`,
    `--CDLLAMA_INCLUDE_DIR=${join(sourceFolder, "include")}`,
    `--CDGGML_INCLUDE_DIR=${join(sourceFolder, "ggml", "include")}`,
    `--CDNODE_ADDON_API_DIR=${nodeAddonApi}`,
    `--CDLLAMA_LIBRARIES=${["libllama.so", "libggml.so", "libggml-base.so"].map(llamaLibrary).join(";")}`,
    `--CDLLAMA_LIBRARIES_DIR=${librariesFolder}`,
    // With the test hooks (native/src/test-hooks.h) compiled in, one sanitized addon also serves the tests
    // that widen race windows or inject faults; unset, every hook is a no-op.
    "--CDTESSERA_TEST_HOOKS=ON",
  ];
  const started = Date.now();
  // Configure on every run: `cmake-js compile` would keep the options of the first configure forever.
  // Unchanged options reconfigure in seconds and recompile nothing.
  for (const [command, options] of [
    ["configure", [...folderOptions, ...cmakeOptions, ...logOptions]],
    ["build", [...folderOptions, ...logOptions]],
  ]) {
    const result = spawnSync(process.execPath, [cmakeJs, command, ...options], {
      stdio: ["ignore", "inherit", "inherit"],
      cwd: projectRoot,
      env: { ...process.env, CMAKE_BUILD_PARALLEL_LEVEL: String(jobs) },
    });
    if (result.status !== 0) {
      fail(
        `cmake-js ${command} failed (exit ${result.status ?? result.signal}); set TESSERA_NATIVE_VERBOSE=1 for the full log.`,
      );
    }
  }
  const addonPath = join(addonBuildFolder, "Release", "tessera.node");
  if (!existsSync(addonPath)) fail(`the build finished but ${addonPath} is missing.`);
  // The addon must resolve libllama and libggml to the instrumented copies, never to node-llama-cpp's.
  const linked = execFileSync("ldd", [addonPath], { encoding: "utf8" });
  for (const name of ["libllama.so", "libggml.so", "libggml-base.so"]) {
    const line = linked.split("\n").find((entry) => entry.trim().startsWith(name));
    // ldd prints the path the rpath produced ($ORIGIN/../..), so compare real folders.
    const resolved = line?.match(/=>\s*(\S+)/)?.[1];
    if (resolved === undefined || dirname(realpathSync(resolved)) !== realpathSync(librariesFolder)) {
      fail(
        `${addonPath} does not resolve ${name} to ${librariesFolder} (ldd: ${line?.trim() ?? "not linked"}).`,
      );
    }
  }
  console.error(
    `tessera build:native:sanitize: built ${addonPath} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return addonPath;
}

buildInstrumentedLlama();
const addon = buildSanitizedAddon();
console.log(JSON.stringify({ addon, libraries: librariesFolder }));
