// Spawns the built CLI (`npm run build` first), as a user would run it.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { scratchFolder } from "./crafted-files.js";

const run = promisify(execFile);
const scratch = scratchFolder();
afterAll(() => scratch.remove());

function tessera(...args: string[]) {
  return run(process.execPath, ["dist/cli/main.js", ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
}

async function failure(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await tessera(...args);
  } catch (error) {
    return error as { code: number; stderr: string };
  }
  throw new Error(`tessera ${args.join(" ")} succeeded`);
}

describe("tessera models", () => {
  it("make writes a preset with the requested type and seed", async () => {
    const out = join(scratch.path, "made.gguf");
    const { stdout } = await tessera("models", "make", "tiny", "--type", "q4_0", "--seed", "9", "--out", out);
    expect(stdout).toContain(out);
    expect(stdout).toMatch(/tiny q4_0 seed 9: [\d.]+ MiB in [\d.]+ s \([\d.]+ MiB\/s\)/);
    const info = await readGgufFile(out);
    expect(info.tensors.find((tensor) => tensor.name === "output.weight")?.type).toBe("Q4_0");
    expect(info.metadataByKey.get("tessera.synthetic.seed")).toEqual({ type: "uint32", value: 9 });
  });

  it("info prints the metadata and tensor table, and --json the same for machines", async () => {
    const out = join(scratch.path, "made.gguf");
    const { stdout } = await tessera("models", "info", out);
    expect(stdout).toContain("GGUF v3");
    expect(stdout).toContain("llama model: consistent");
    expect(stdout).toMatch(/tokenizer\.ggml\.tokens\s+array\s+\[string × 32000\] "<unk>", "<s>"/);
    expect(stdout).toMatch(/blk\.1\.ffn_down\.weight\s+Q4_0\s+256 × 64/);
    const json = JSON.parse((await tessera("models", "info", out, "--json")).stdout);
    expect(json.version).toBe(3);
    expect(json.tensors).toHaveLength(21);
    expect(
      json.metadata.find((entry: { key: string }) => entry.key === "tokenizer.ggml.tokens").value,
    ).toHaveLength(32000);
    expect(json.llamaProblems).toEqual([]);
  });

  it("rejects an unknown preset, an unknown type, a bad seed and a non-GGUF file with one clear line", async () => {
    const cases: [string[], RegExp][] = [
      [["models", "make", "gpt-5"], /Unknown preset "gpt-5"\. Presets: tiny/],
      [["models", "make", "tiny", "--type", "q3_k"], /Expected one of f32, f16, q8_0, q4_0/],
      [["models", "make", "tiny", "--seed", "-1"], /Expected an integer/],
      [["models", "info", "package.json"], /Not a readable GGUF file.*7b 0a 20 20/],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await failure(...args);
      expect(code).not.toBe(0);
      expect(stderr).toMatch(message);
    }
  });
});
