import { execFile } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { modelsDirectory, resolveDefaultModel, resolveModel } from "../../src/gguf/default-model.js";
import { GgufUnknownPresetError } from "../../src/gguf/errors/gguf-unknown-preset-error.js";
import { readGgufFile } from "../../src/gguf/gguf-reader.js";
import { writableTensorTypeNamed } from "../../src/gguf/tensor-encoding.js";
import { scratchFolder } from "./crafted-files.js";

const run = promisify(execFile);
const scratch = scratchFolder();
afterAll(() => scratch.remove());

describe("resolving models", () => {
  it("generates the default model once into the given folder and reuses it", async () => {
    const dir = join(scratch.path, "once");
    const first = await resolveDefaultModel({ dir });
    expect(first).toBe(join(dir, "tiny-f32.gguf"));
    const written = statSync(first).mtimeMs;
    expect(await resolveDefaultModel({ dir })).toBe(first);
    expect(statSync(first).mtimeMs).toBe(written);
  });

  it("uses <package>/models by default", () => {
    expect(modelsDirectory()).toBe(resolve("models"));
  });

  it("shares one generation between concurrent first uses in a process", async () => {
    const dir = join(scratch.path, "concurrent");
    const paths = await Promise.all([
      resolveDefaultModel({ dir }),
      resolveDefaultModel({ dir }),
      resolveModel("tiny:f32", { dir }),
    ]);
    expect(new Set(paths).size).toBe(1);
    expect(readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
    expect((await readGgufFile(paths[0]!)).tensors.length).toBeGreaterThan(0);
  });

  it("is safe when several processes generate the default model at once", async () => {
    const entry = resolve("dist/gguf/default-model.js");
    if (!existsSync(entry)) throw new Error("run `npm run build` first: this test spawns node on dist/");
    const dir = join(scratch.path, "processes");
    const script = `const { resolveDefaultModel } = await import(${JSON.stringify(entry)}); console.log(await resolveDefaultModel({ dir: ${JSON.stringify(dir)} }));`;
    const outputs = await Promise.all(
      [0, 1, 2].map(() => run(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })),
    );
    expect(new Set(outputs.map((output) => output.stdout.trim()))).toEqual(
      new Set([join(dir, "tiny-f32.gguf")]),
    );
    expect(readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
    const info = await readGgufFile(join(dir, "tiny-f32.gguf"));
    expect(info.tensors.at(-1)!.fileOffset + info.tensors.at(-1)!.byteSize).toBeLessThanOrEqual(
      info.fileSize,
    );
  });

  it("returns an existing file as an absolute path", async () => {
    const path = await resolveDefaultModel({ dir: join(scratch.path, "once") });
    expect(await resolveModel(path)).toBe(path);
  });

  it("generates a preset with a type on first use", async () => {
    const dir = join(scratch.path, "typed");
    const generations: unknown[] = [];
    let progressCalls = 0;
    const options = {
      dir,
      onGenerate: (generation: unknown) => generations.push(generation),
      onProgress: () => progressCalls++,
    };
    const path = await resolveModel("tiny:Q4_0", options);
    expect(path).toBe(join(dir, "tiny-q4_0.gguf"));
    expect(generations).toEqual([{ preset: "tiny", type: "Q4_0", path }]);
    expect(progressCalls).toBeGreaterThan(0);
    // The second call finds the file: no generation announced.
    expect(await resolveModel("tiny:q4_0", options)).toBe(path);
    expect(generations).toHaveLength(1);
    const info = await readGgufFile(path);
    expect(info.tensors.find((tensor) => tensor.name === "token_embd.weight")?.type).toBe("Q4_0");
  });

  it("names a writable tensor type in any case, and nothing else", () => {
    expect(writableTensorTypeNamed("q4_0")).toBe("Q4_0");
    expect(writableTensorTypeNamed("F16")).toBe("F16");
    expect(writableTensorTypeNamed("q3_k")).toBeUndefined();
    expect(writableTensorTypeNamed("")).toBeUndefined();
  });

  it("rejects unknown presets, unknown types and missing files with the choices", async () => {
    for (const request of ["no-such-model", "tiny:q3_k", "tiny:q4_0:extra", "./missing.gguf"]) {
      const error = await resolveModel(request, { dir: join(scratch.path, "never") }).catch(
        (caught: unknown) => caught,
      );
      expect(GgufUnknownPresetError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain("llama-3.2-1b");
      expect((error as Error).message).toContain("q4_0");
    }
    expect(existsSync(join(scratch.path, "never"))).toBe(false);
  });
});
