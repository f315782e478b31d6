// The per-token row passes (scanRow, summarizeRow, topKDense) against reference loops on edge-case rows
// (native/test/row-scan-check.cpp), compiled as shipped (the clone the CPU gets at load time: x86-64-v4 on
// an AVX-512 CPU, v3 on AVX2, and the hand-written AVX-512 forms where AVX512F and VL are there),
// as the v3 clone alone, and with the clones removed (the portable code every other machine runs); the
// last two without the AVX-512 form, so that its fallback is checked on its own too.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/support/package-folders.js";

const root = packageRoot();
const folder = mkdtempSync(join(tmpdir(), "tessera-row-scan-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function headers(): string[] {
  // The headers `npm run build:native` extracted (native/.cache/llama-<tag>-<key>/), as the addon uses.
  const cache = join(root, "native", ".cache");
  const extracted = readdirSync(cache).find(
    (name) => name.startsWith("llama-") && existsSync(join(cache, name, "include", "llama.h")),
  );
  if (extracted === undefined) throw new Error(`no llama.cpp headers in ${cache}: run npm run build:native`);
  const base = join(cache, extracted);
  return [
    `-I${join(root, "native", "src")}`,
    `-I${join(base, "include")}`,
    `-I${join(base, "ggml", "include")}`,
  ];
}

function compileAndRun(source: string, name: string, defines: string[] = []): string {
  const binary = join(folder, name);
  execFileSync(
    process.env.CXX ?? "g++",
    [
      "-std=c++17",
      "-O2",
      ...defines,
      ...headers(),
      join(root, "native", "test", "row-scan-check.cpp"),
      source,
      "-o",
      binary,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return execFileSync(binary, { encoding: "utf8" });
}

const counts = "cases=3760 fails=0 topk_cases=81918 topk_fails=0 summary_cases=4096 summary_fails=0";
const withoutAvx512 = ["-DTESSERA_ROW_PASS_NO_AVX512"];

// The source with its clone attribute replaced: "" for the portable code, or one target for a clone the
// load-time choice would not pick on this CPU.
function variant(name: string, attribute: string): string {
  const shipped = join(root, "native", "src", "logits-capture.cpp");
  const text = readFileSync(shipped, "utf8").replace(
    /__attribute__\(\(target_clones\([^)]*\)\)\)/,
    attribute,
  );
  expect(text).not.toMatch(/target_clones/);
  const path = join(folder, `logits-capture-${name}.cpp`);
  writeFileSync(
    path,
    text.replace(
      '#include "logits-capture.h"',
      `#include "${join(root, "native", "src", "logits-capture.h")}"`,
    ),
  );
  return path;
}

const cpuFlags = existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
// The form the row passes take as shipped: the AVX-512 one where it is compiled in (GCC 11 or later on x86-64
// Linux, as the clones) and the CPU has AVX512F and VL.
const shippedForm =
  process.platform === "linux" &&
  process.arch === "x64" &&
  /\bavx512f\b/.test(cpuFlags) &&
  /\bavx512vl\b/.test(cpuFlags) &&
  gccMajor() >= 11
    ? "avx512"
    : "vector-extensions";

function gccMajor(): number {
  try {
    const version = execFileSync(process.env.CXX ?? "g++", ["-dumpversion"], { encoding: "utf8" });
    return /clang/i.test(execFileSync(process.env.CXX ?? "g++", ["--version"], { encoding: "utf8" }))
      ? 0
      : Number.parseInt(version, 10);
  } catch {
    return 0;
  }
}

describe("the row passes of logits-capture.cpp", () => {
  it("match the reference loops as shipped and in their portable form", () => {
    expect(compileAndRun(join(root, "native", "src", "logits-capture.cpp"), "shipped")).toContain(
      `${counts} form=${shippedForm}`,
    );
    expect(compileAndRun(variant("portable", ""), "portable", withoutAvx512)).toContain(
      `${counts} form=vector-extensions`,
    );
  }, 120_000);

  // As shipped, an AVX-512 CPU runs the x86-64-v4 clone: the v3 one (every AVX2 CPU without AVX-512) is
  // checked here on its own.
  it.runIf(process.arch === "x64" && /\bavx2\b/.test(cpuFlags) && /\bfma\b/.test(cpuFlags))(
    "match the reference loops in the x86-64-v3 clone",
    () => {
      const v3 = variant("v3", '__attribute__((target("arch=x86-64-v3")))');
      expect(compileAndRun(v3, "v3", withoutAvx512)).toContain(`${counts} form=vector-extensions`);
    },
    120_000,
  );
});
