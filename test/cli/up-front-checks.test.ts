// Bad output paths, a bad models folder and bad flag values fail at once, before any model is generated
// or any benchmark runs, with one `tessera: ` line naming the flag (or TESSERA_MODELS_DIR) to change.
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { linesOf, runCli, withoutNotices } from "./support/run-cli.js";

function expectOneLine(stderr: string, pattern: RegExp): void {
  const lines = linesOf(withoutNotices(stderr));
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^tessera: /);
  expect(lines[0]).toMatch(pattern);
  // No raw system-call text ("EEXIST: file already exists, mkdir '/etc/passwd'", "getaddrinfo ENOTFOUND").
  expect(lines[0]).not.toMatch(/\bE[A-Z]{3,}\b|getaddrinfo|, (mkdir|stat|open|rename|listen) /);
}

/** An empty models folder: a command that generated its model before failing leaves a file in it. */
function emptyModelsFolder(): { env: Record<string, string>; folder: string } {
  const folder = mkdtempSync(join(tmpdir(), "tessera-models-"));
  return { folder, env: { TESSERA_MODELS_DIR: folder } };
}

describe("bench --out is checked before the benchmark runs", () => {
  for (const command of ["strategies", "throughput", "ttfb"]) {
    it(`bench ${command} --out /proc/nope`, async () => {
      // Node's recursive mkdir never returns under /proc: the timeout is what fails the unfixed command.
      const models = emptyModelsFolder();
      const result = await runCli(["bench", command, "--quick", "--threads", "1", "--out", "/proc/nope"], {
        timeoutMs: 20_000,
        env: models.env,
      });
      expect(result.code).toBe(1);
      expectOneLine(result.stderr, /Cannot write \/proc\/nope: .*pass another --out\.$/);
      expect(readdirSync(models.folder)).toEqual([]);
    }, 30_000);
  }

  it("bench strategies --out under a file", async () => {
    const result = await runCli(["bench", "strategies", "--quick", "--out", "/etc/passwd/x"], {
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /\/etc\/passwd is a file, not a folder.*--out\.$/);
  }, 30_000);
});

describe("a bad TESSERA_MODELS_DIR is one line naming it", () => {
  for (const folder of ["/proc/nope", "/etc/passwd"]) {
    it(`TESSERA_MODELS_DIR=${folder} tessera run --model tiny`, async () => {
      // A generated preset is written into TESSERA_MODELS_DIR (the default, tiny-text, is committed and
      // read from the package, so it needs no models folder).
      const result = await runCli(["run", "--model", "tiny", "--threads", "1", "-n", "2", "hi"], {
        timeoutMs: 20_000,
        env: { TESSERA_MODELS_DIR: folder },
      });
      expect(result.code).toBe(1);
      expectOneLine(
        result.stderr,
        new RegExp(`models folder ${folder}: .*Set TESSERA_MODELS_DIR to a writable folder\\.$`),
      );
    }, 30_000);
  }
});

describe("inspect -o is checked before generating", () => {
  for (const [out, reason] of [
    ["/etc/passwd/x.html", /\/etc\/passwd is a file, not a folder/],
    [tmpdir(), /it is a folder/],
  ] as const) {
    it(`inspect -o ${out}`, async () => {
      const models = emptyModelsFolder();
      const result = await runCli(["inspect", "--threads", "1", "-n", "2", "-o", out, "hi"], {
        timeoutMs: 30_000,
        env: models.env,
      });
      expect(result.code).toBe(1);
      expectOneLine(result.stderr, reason);
      expect(result.stderr).toMatch(/--out\.\n$/);
      // Nothing was generated: the model would have been written into the empty models folder first.
      expect(readdirSync(models.folder)).toEqual([]);
    }, 40_000);
  }

  it("makes a missing folder for -o and says so, as models make does", async () => {
    const folder = join(mkdtempSync(join(tmpdir(), "tessera-inspect-")), "new", "deeper");
    const out = join(folder, "page.html");
    const result = await runCli(["inspect", "--threads", "1", "-n", "2", "-o", out, "hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(linesOf(withoutNotices(result.stderr))).toEqual([
      `Created the folder ${join(folder, "..")} for --out.`,
    ]);
  });
});

describe("flags and paths are named in CLI words", () => {
  it("models make --out / is refused before generating", async () => {
    const models = emptyModelsFolder();
    const result = await runCli(["models", "make", "tiny", "--out", "/"], { env: models.env });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /Cannot write \/: it is the file-system root.*--out\.$/);
  });

  it("run --repeat-penalty 0 names the flag, not the library option", async () => {
    const result = await runCli(["run", "--threads", "1", "-n", "2", "--repeat-penalty", "0", "hi"]);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /--repeat-penalty/);
    expect(result.stderr).not.toMatch(/repeatPenalty/);
  });

  it("serve --host with a name that does not resolve names --host", async () => {
    const result = await runCli(["serve", "--threads", "1", "--port", "0", "--host", "nonexistent.invalid"], {
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /nonexistent\.invalid.*--host/);
  });

  for (const args of [["serve", "--port", "99999"], ["run", "--threads", "0", "hi"], ["nosuchcommand"]]) {
    it(`a usage error is one line: tessera ${args.join(" ")}`, async () => {
      const result = await runCli(args);
      expect(result.code).toBe(1);
      expect(linesOf(result.stderr), result.stderr).toHaveLength(1);
      expect(result.stderr).toMatch(/^tessera: /);
    });
  }

  it("the preset lists name the trained presets", async () => {
    const result = await runCli(["run", "-m", "nope", "hi"]);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr, /tiny-arith.*tiny-text|tiny-text.*tiny-arith/);
    const help = await runCli(["inspect", "--help"]);
    expect(help.stdout).toMatch(/tiny-arith/);
    expect(help.stdout).toMatch(/tiny-text/);
  });
});
