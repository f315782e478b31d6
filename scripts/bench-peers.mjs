#!/usr/bin/env node
// Builds llama.cpp's own `llama-bench` and `llama-server` (the reference rows of `tessera bench`) from
// the llama.cpp source bundle that node-llama-cpp ships, fully offline. It then links llama-server's
// compiled code a second time, against node-llama-cpp's prebuilt libllama/libggml (the ones tessera
// loads; their CPU backend variant is picked at run time), into build/bin-prebuilt/: with it, `bench ttfb`
// compares the two servers on the same llama.cpp build, where the first llama-server is compiled here
// for this CPU. Opt-in and never run in CI:
// it compiles all of llama.cpp (16-50 minutes with one job on a 2-core VM). The result is cached in
// .cache/bench-peers/<tag>/ (git-ignored) and reused while the bundle is unchanged.
//
// Usage: node scripts/bench-peers.mjs [--jobs N] [--nice]     (prints the folder of the binaries)
// Environment: TESSERA_PEERS_JOBS (default 1, so other work on a small machine is not starved).
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { locateLlamaBundle, packageRoot } from "./llama-bundle.mjs";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cacheRoot = join(projectRoot, ".cache", "bench-peers");

function fail(message) {
  console.error(`tessera bench:peers: ${message}`);
  process.exit(1);
}

function argumentValue(name) {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const jobs = Number(argumentValue("--jobs") ?? process.env.TESSERA_PEERS_JOBS ?? "1");
if (!Number.isInteger(jobs) || jobs < 1) fail(`--jobs must be a positive integer, got ${jobs}.`);
const lowPriority = process.argv.includes("--nice");

let bundle;
try {
  bundle = locateLlamaBundle(projectRoot);
} catch (error) {
  fail(error.message);
}
const { bundlePath, bundleKey, tag } = bundle;

const buildRoot = join(cacheRoot, `${tag}-${bundleKey}`);
const sourceFolder = join(buildRoot, "source");
const buildFolder = join(buildRoot, "build");
const binFolder = join(buildFolder, "bin");
const doneMarker = join(buildRoot, ".complete");
const targets = ["llama-bench", "llama-server"];
const prebuiltFolder = join(buildFolder, "bin-prebuilt");
const prebuiltServer = join(prebuiltFolder, "llama-server");
// The second link swaps CMake's static libraries for node-llama-cpp's shared ones, as its Makefile link
// command on Linux names them; elsewhere (macOS, Windows, other generators) it is skipped with a note.
const linksPrebuilt = process.platform === "linux" && !process.env.CMAKE_GENERATOR;

// x86-64: the instruction sets come from /proc/cpuinfo instead of -march=native, so that AMX is never
// compiled in. Many VMs list AMX in cpuinfo without enabling its register state; llama.cpp's AMX kernels
// (used for Q4_0/Q8_0 weights) then die with SIGILL on the first matrix multiplication.
function cpuFlagOptions() {
  if (process.arch !== "x64" || process.platform !== "linux" || !existsSync("/proc/cpuinfo")) return [];
  const flagsLine = readFileSync("/proc/cpuinfo", "utf8").match(/^flags\s*:(.*)$/m)?.[1] ?? "";
  const has = new Set(flagsLine.trim().split(/\s+/));
  const avx512 = ["avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"].every((flag) => has.has(flag));
  const options = { AVX: has.has("avx"), AVX2: has.has("avx2"), FMA: has.has("fma"), F16C: has.has("f16c") };
  Object.assign(options, { BMI2: has.has("bmi2"), AVX_VNNI: has.has("avx_vnni"), AVX512: avx512 });
  Object.assign(options, {
    AVX512_VBMI: avx512 && (has.has("avx512vbmi") || has.has("avx512_vbmi")),
    AVX512_VNNI: avx512 && has.has("avx512_vnni"),
    AVX512_BF16: avx512 && has.has("avx512_bf16"),
  });
  return [
    "-DGGML_NATIVE=OFF",
    ...Object.entries(options).map(([name, enabled]) => `-DGGML_${name}=${enabled ? "ON" : "OFF"}`),
    "-DGGML_AMX_TILE=OFF",
    "-DGGML_AMX_INT8=OFF",
    "-DGGML_AMX_BF16=OFF",
  ];
}

const configureOptions = [
  "-DCMAKE_BUILD_TYPE=Release",
  "-DLLAMA_CURL=OFF",
  "-DLLAMA_OPENSSL=OFF",
  "-DLLAMA_BUILD_TESTS=OFF",
  "-DLLAMA_BUILD_EXAMPLES=OFF",
  "-DLLAMA_BUILD_TOOLS=ON",
  "-DLLAMA_BUILD_SERVER=ON",
  "-DBUILD_SHARED_LIBS=OFF",
  // ggml's own thread pool, as in node-llama-cpp's prebuilt libraries (and tessera, which links them).
  "-DGGML_OPENMP=OFF",
  ...cpuFlagOptions(),
];
const configurationKey = JSON.stringify(configureOptions);

// Done when the marker records this exact configuration; another one reconfigures the same build folder,
// which recompiles only what the change touches (the CPU backend for new instruction-set flags).
if (
  existsSync(doneMarker) &&
  readFileSync(doneMarker, "utf8").trim() === configurationKey &&
  targets.every((target) => existsSync(join(binFolder, target))) &&
  (existsSync(prebuiltServer) || !linksPrebuilt)
) {
  console.log(binFolder);
  process.exit(0);
}

for (const tool of ["git", "cmake"]) {
  const probe = spawnSync(tool, ["--version"], { stdio: "ignore" });
  if (probe.status !== 0)
    fail(`\`${tool}\` was not found on PATH; install it to build llama.cpp's reference tools.`);
}

if (!existsSync(join(sourceFolder, "CMakeLists.txt"))) {
  console.error(`tessera bench:peers: checking out llama.cpp ${tag} from the bundle into ${sourceFolder}`);
  rmSync(sourceFolder, { recursive: true, force: true });
  mkdirSync(buildRoot, { recursive: true });
  execFileSync("git", ["clone", "--quiet", bundlePath, sourceFolder], {
    stdio: ["ignore", "ignore", "inherit"],
  });
}

// `nice -n 19` keeps a long compile from starving interactive work and tests on a shared machine.
const wrap = (command, args) => (lowPriority ? ["nice", ["-n", "19", command, ...args]] : [command, args]);

function run(command, args) {
  const [program, programArguments] = wrap(command, args);
  const result = spawnSync(program, programArguments, {
    stdio: ["ignore", "inherit", "inherit"],
    cwd: buildRoot,
  });
  if (result.status !== 0)
    fail(`\`${command} ${args.join(" ")}\` failed (exit ${result.status ?? result.signal}).`);
}

const started = Date.now();
run("cmake", ["-S", sourceFolder, "-B", buildFolder, ...configureOptions]);
run("cmake", ["--build", buildFolder, "--config", "Release", "-j", String(jobs), "--target", ...targets]);
for (const target of targets) {
  if (!existsSync(join(binFolder, target)))
    fail(`the build finished but ${join(binFolder, target)} is missing.`);
}
// The two peers are built: marked done first, so that a failed second link loses only its own row.
writeFileSync(doneMarker, `${configurationKey}\n`);
if (linksPrebuilt) {
  try {
    linkPrebuiltServer();
  } catch (error) {
    console.error(
      `tessera bench:peers: llama-server was not linked against the prebuilt libraries (${error.message}); the "llama-server (HTTP, prebuilt libs)" row will be skipped.`,
    );
  }
} else {
  console.error(
    "tessera bench:peers: the llama-server on node-llama-cpp's prebuilt libraries is linked on Linux with CMake's Makefile generator only; its bench ttfb row will be skipped.",
  );
}
console.error(
  `tessera bench:peers: built ${targets.join(", ")} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
console.log(binFolder);

// llama-server's own link command (CMake's link.txt), with llama.cpp's static libraries swapped for the
// prebuilt shared ones: the server's code (HTTP, slots, common, mtmd) is the same object files, and
// llama.cpp itself is exactly what tessera runs. The prebuilt libggml loads its CPU backend from the
// executable's folder (ggml_backend_load_all), so the folder links every prebuilt library beside it.
function linkPrebuiltServer() {
  const flavour = `${process.platform}-${process.arch}`;
  const binaries = packageRoot(projectRoot, `@node-llama-cpp/${flavour}`);
  const libraries = binaries && join(binaries, "bins", flavour);
  if (libraries === undefined || !existsSync(libraries))
    throw new Error(
      `node-llama-cpp's prebuilt libraries for ${flavour} were not found; its package for this machine is named otherwise, or is not installed.`,
    );
  const files = readdirSync(libraries);
  const prebuilt = (pattern) => {
    const found = files.find((name) => pattern.test(name));
    if (found === undefined) throw new Error(`no library matching ${pattern} in ${libraries}`);
    return join(libraries, found);
  };
  const serverBuild = join(buildFolder, "tools", "server");
  const linkFile = join(serverBuild, "CMakeFiles", "llama-server.dir", "link.txt");
  if (!existsSync(linkFile))
    throw new Error(`${linkFile} is missing: this llama.cpp's build has changed shape.`);
  const swaps = new Map([
    ["../../src/libllama.a", prebuilt(/^libllama\.v[\d.]+\.so$|^libllama\.so$/)],
    ["../../ggml/src/libggml.a", prebuilt(/^libggml\.v[\d.]+\.so$|^libggml\.so$/)],
    ["../../ggml/src/libggml-cpu.a", null],
    ["../../ggml/src/libggml-base.a", prebuilt(/^libggml-base\.so$/)],
    ["../../bin/llama-server", prebuiltServer],
  ]);
  const words = readFileSync(linkFile, "utf8").trim().split(/\s+/);
  for (const library of swaps.keys()) {
    if (!words.includes(library))
      throw new Error(
        `llama-server's link command (${linkFile}) no longer names ${library}; update linkPrebuiltServer().`,
      );
  }
  const command = words.flatMap((word) => (swaps.has(word) ? [swaps.get(word)].filter(Boolean) : [word]));
  rmSync(prebuiltFolder, { recursive: true, force: true });
  mkdirSync(prebuiltFolder, { recursive: true });
  for (const name of files.filter((file) => /^lib.*\.so$/.test(file)))
    symlinkSync(join(libraries, name), join(prebuiltFolder, name));
  const [program, ...programArguments] = [...command, `-Wl,-rpath,${libraries}`].map((word) =>
    word.replace(/^"(.*)"$/, "$1"),
  );
  const [wrapped, wrappedArguments] = wrap(program, programArguments);
  const result = spawnSync(wrapped, wrappedArguments, {
    stdio: ["ignore", "inherit", "inherit"],
    cwd: serverBuild,
  });
  if (result.status !== 0 || !existsSync(prebuiltServer))
    throw new Error(
      `linking llama-server against the prebuilt libraries failed (exit ${result.status ?? result.signal}).`,
    );
  console.error(`tessera bench:peers: linked ${prebuiltServer} against ${libraries}`);
}
