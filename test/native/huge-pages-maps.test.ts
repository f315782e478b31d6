// native/src/huge-pages.cpp in a process of its own (native/test/huge-pages-check.cpp): a file path long
// enough to split a fixed-size line buffer is not read as anonymous memory (a reviewer's finding), memory
// mapped before the snapshot is never advised, written pages are collapsed and untouched ones are not,
// and nothing is advised without a snapshot. Then a Node process whose huge pages are disabled
// (prctl PR_SET_THP_DISABLE, through python3) reports supported: false and advises nothing.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/support/package-folders.js";

const root = packageRoot();
const folder = mkdtempSync(join(tmpdir(), "tessera-huge-pages-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe.runIf(process.platform === "linux")("huge-pages.cpp", () => {
  it("reads /proc/self/maps line by line and advises only what was mapped since the snapshot", () => {
    const binary = join(folder, "huge-pages-check");
    execFileSync(
      process.env.CXX ?? "g++",
      [
        "-std=c++17",
        "-O2",
        `-I${join(root, "native", "src")}`,
        join(root, "native", "test", "huge-pages-check.cpp"),
        join(root, "native", "src", "huge-pages.cpp"),
        "-o",
        binary,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const scratch = mkdtempSync(join(folder, "paths-"));
    const result = spawnSync(binary, [scratch], { encoding: "utf8" });
    expect(result.stdout).toMatch(/^failures 0$/m);
    expect(result.stdout).not.toMatch(/FAIL/);
    expect(result.status).toBe(0);
  }, 60_000);

  // Node cannot call prctl; python3 with ctypes can, and exec keeps the setting.
  const python = spawnSync("python3", ["-c", "import ctypes"]).status === 0;
  it.runIf(python)(
    "a process with huge pages disabled (PR_SET_THP_DISABLE) reports unsupported and advises nothing",
    () => {
      const script = [
        "import ctypes, os, sys",
        "libc = ctypes.CDLL(None, use_errno=True)",
        // PR_SET_THP_DISABLE = 41; inherited across exec.
        "assert libc.prctl(41, 1, 0, 0, 0) == 0",
        "os.execv(sys.argv[1], sys.argv[1:])",
      ].join("\n");
      const child = [
        "const { loadLlamaModel } = await import(process.argv[1]);",
        "const model = await loadLlamaModel(process.argv[2]);",
        "const context = await model.createContext({ contextSize: 4096, threads: 1 });",
        "console.log(JSON.stringify({ model: model.hugePages, context: context.hugePages }));",
        "context.dispose(); model.dispose();",
      ].join("\n");
      const result = spawnSync(
        "python3",
        [
          "-c",
          script,
          process.execPath,
          "--input-type=module",
          "-e",
          child,
          join(root, "dist", "backends", "llamacpp", "llama-model.js"),
          join(root, "models", "tiny-arith.gguf"),
        ],
        { encoding: "utf8" },
      );
      expect(result.stderr).toBe("");
      const reported = JSON.parse(result.stdout.trim());
      for (const advice of [reported.model, reported.context]) {
        expect(advice).toMatchObject({
          requested: true,
          supported: false,
          advisedBytes: 0,
          collapsedBytes: 0,
        });
      }
    },
    60_000,
  );
});
