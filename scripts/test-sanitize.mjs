#!/usr/bin/env node
// `npm run test:sanitize`: builds the ASan + UBSan addon and its instrumented llama.cpp if needed
// (build-native-sanitize.mjs, opt-in and cached), then runs the native tests and the schedule fuzzer's CI
// seeds in node with libasan preloaded. Any sanitizer report fails the run, also an ASan report from a
// test's child process whose crash the test itself expected: every process writes its ASan reports to its
// own file in test-artifacts/sanitize/ (log_path), and this script fails when any such file holds an error.
//
// Sanitizers do not see lost wake-ups or deadlocks: those are the schedule fuzzer's job.
//
// Usage: node scripts/test-sanitize.mjs [extra vitest arguments for the native tests, e.g. a file filter]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const reportFolder = join(projectRoot, "test-artifacts", "sanitize");

function fail(message) {
  console.error(`tessera test:sanitize: ${message}`);
  process.exit(1);
}

function say(message) {
  console.error(`tessera test:sanitize: ${message}`);
}

// 1. The build (reused when nothing changed). Its last stdout line says where the results are.
const buildStarted = Date.now();
const build = spawnSync(process.execPath, [join(projectRoot, "scripts", "build-native-sanitize.mjs")], {
  stdio: ["ignore", "pipe", "inherit"],
  encoding: "utf8",
});
if (build.status !== 0) fail(`the sanitizer build failed (exit ${build.status ?? build.signal}).`);
const { addon, libraries } = JSON.parse(build.stdout.trim().split("\n").pop());
say(`build ready in ${((Date.now() - buildStarted) / 1000).toFixed(0)} s`);

// 2. The sanitizer runtimes the addon was linked with (ldd names the exact files). node itself is not
// instrumented, so libasan must be preloaded: ASan has to intercept malloc before the first allocation.
const linked = execFileSync("ldd", [addon], { encoding: "utf8" });
function runtime(name) {
  const match = linked.match(new RegExp(`^\\s*${name}\\.so\\S*\\s*=>\\s*(\\S+)`, "m"));
  if (match === null)
    fail(`${addon} is not linked against ${name}; rebuild with scripts/build-native-sanitize.mjs.`);
  return match[1];
}
const preload = [runtime("libasan"), runtime("libubsan")];

rmSync(reportFolder, { recursive: true, force: true });
mkdirSync(reportFolder, { recursive: true });
const asanOptions = [
  // Node and V8 keep much of their memory until the process ends, by design (no teardown of the isolate's
  // heap, snapshot data, per-thread caches), so LeakSanitizer would bury real reports under node's own.
  "detect_leaks=0",
  // ASan stops at the first error anyway (the code is not built with -fsanitize-recover=address); the
  // report goes to its own file and the process exits with 86, which neither node nor a test uses.
  "halt_on_error=1",
  "exitcode=86",
  // A failed allocation returns NULL (or throws std::bad_alloc) as in production instead of being
  // reported: the native tests ask for impossible context sizes on purpose.
  "allocator_may_return_null=1",
  // V8 installs its own SIGSEGV handler (WebAssembly bounds traps); ASan must let it.
  "allow_user_segv_handler=1",
  "detect_stack_use_after_return=0",
  `log_path=${join(reportFolder, "asan")}`,
];
// GCC's UBSan ignores log_path when ASan is loaded too (measured with gcc 12): its reports go to the
// process's stderr. So every UB stops its process with exit code 87, and the output of each step below is
// kept in a log file and searched for "runtime error:"; a report in a test's child process whose stderr
// the test swallows still shows as that test failing on the unexpected exit code.
const ubsanOptions = ["print_stacktrace=1", "halt_on_error=1", "exitcode=87", "report_error_type=1"];
const environment = {
  ...process.env,
  LD_PRELOAD: [...preload, process.env.LD_PRELOAD].filter(Boolean).join(" "),
  ASAN_OPTIONS: asanOptions.join(":"),
  UBSAN_OPTIONS: ubsanOptions.join(":"),
  TESSERA_NATIVE_ADDON: addon,
  TESSERA_LLAMA_LIBRARIES_DIR: libraries,
  // The tests that need the hook-enabled addon load this one instead of native/build-test-hooks/.
  TESSERA_TEST_HOOKS_ADDON: addon,
  // For the few checks that cannot hold under ASan: memory-growth bounds (ASan's quarantine keeps freed
  // memory resident) and wall-clock budgets (instrumented code is several times slower).
  TESSERA_SANITIZE: "1",
};

// 3. Proof that the instrumented libraries, and only they, are the ones loaded.
const preflight = spawnSync(
  process.execPath,
  [join(projectRoot, "scripts", "sanitize-preflight.cjs"), addon, libraries],
  { env: environment, encoding: "utf8" },
);
if (preflight.status !== 0) {
  fail(`the preflight load failed (exit ${preflight.status ?? preflight.signal}):\n${preflight.stderr}`);
}
const loaded = JSON.parse(preflight.stdout.trim().split("\n").pop());
if (loaded.problems.length > 0)
  fail(`the sanitized run would not be instrumented: ${loaded.problems.join("; ")}.`);
say(`preflight: ${loaded.llamaLibraries.length} llama.cpp libraries, all from ${libraries}; ${loaded.asan}`);

// Runs one step with the sanitizer environment, echoing its output and keeping a copy in the report folder.
async function step(name, args) {
  const logPath = join(reportFolder, `${name}.log`);
  const log = createWriteStream(logPath);
  const started = Date.now();
  const child = spawn(process.execPath, args, {
    env: environment,
    cwd: projectRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    log.write(chunk);
  });
  child.stderr.on("data", (chunk) => {
    process.stderr.write(chunk);
    log.write(chunk);
  });
  const [code, signal] = await new Promise((done) => child.on("close", (...result) => done(result)));
  await new Promise((done) => log.end(done));
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  say(`${name}: exit ${code ?? signal} after ${seconds} s (output in ${logPath})`);
  return { name, code, signal, seconds, logPath };
}

// 4. The native tests. node-llama-cpp-parity loads node-llama-cpp's own addon, which brings the prebuilt
// (uninstrumented) libllama and libggml into the same process as the instrumented ones: two copies of
// ggml's global symbols, which is not a run worth sanitizing.
const steps = [];
steps.push(
  await step("native-tests", [
    join(projectRoot, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "test/native",
    "--exclude",
    "test/native/node-llama-cpp-parity.test.ts",
    // Instrumented decoding is several times slower; one worker keeps a 2-core machine responsive.
    "--maxWorkers",
    "1",
    "--testTimeout",
    "180000",
    ...process.argv.slice(2),
  ]),
);

// 5. The schedule fuzzer's CI seeds (seed 1, cases 0-249, as test/reliability/schedule-fuzz.test.ts runs
// them) through the CLI: under ASan they take longer than that test's own time limit. The cases run
// compiled JavaScript, so this step needs `npm run build:ts`.
const cli = join(projectRoot, "dist", "cli", "main.js");
if (existsSync(cli) && existsSync(join(projectRoot, "dist", "reliability", "schedule-child.js"))) {
  steps.push(
    await step("schedule-seeds", [
      cli,
      "reliability",
      ...["--fuzz", "0", "--cancellations", "0", "--stall-seconds", "0", "--clients", "0"],
      ...["--options", "0", "--schedules", "250", "--seed", "1"],
    ]),
  );
} else {
  say("dist/ has no schedule fuzzer; run `npm run build:ts` to include its CI seeds");
}

// 6. Every error report, from any process, fails the run: ASan's report files (log_path) and UBSan's
// "runtime error:" lines in the steps' output. The runtimes may also write warnings (e.g. about stack
// switching); those are printed but fail nothing.
const reports = readdirSync(reportFolder).filter((name) => /^asan\.\d+/.test(name));
let errors = 0;
for (const name of reports) {
  const text = readFileSync(join(reportFolder, name), "utf8");
  const isError = /ERROR: \w+Sanitizer/.test(text);
  if (isError) errors++;
  console.error(`\n===== ${isError ? "ERROR" : "warning"}: ${join(reportFolder, name)} =====\n${text}`);
}
for (const { logPath } of steps) {
  const undefinedBehaviour = readFileSync(logPath, "utf8")
    .split("\n")
    .filter((line) => line.includes("runtime error:"));
  errors += undefinedBehaviour.length;
  for (const line of undefinedBehaviour) console.error(`===== ERROR (UBSan) in ${logPath}: ${line}`);
}
const failedSteps = steps.filter((result) => result.code !== 0);
const timing = steps.map((result) => `${result.name} ${result.seconds} s`).join(", ");
if (errors > 0)
  fail(`${errors} sanitizer error report(s), printed above and kept in ${reportFolder} (${timing}).`);
if (failedSteps.length > 0) {
  fail(
    `${failedSteps.map((result) => result.name).join(" and ")} failed without a sanitizer report (${timing}).`,
  );
}
say(`clean: no ASan or UBSan error reports (${timing}).`);
