// Takes vocabulary GGUFs (real tokenizers: tokens, scores, types, merges, special ids) out of the
// llama.cpp source bundle that node-llama-cpp ships, once, into a cache folder. git reads the bundle;
// each extraction uses its own temporary repository and lands by rename, so concurrent first uses
// never see a half-written file.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, open, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GgufVocabUnavailableError } from "./errors/gguf-vocab-unavailable-error.js";
import { prepareModelsFolder } from "./prepare-models-folder.js";

export const vocabularyNames = ["llama-spm", "llama-bpe"] as const;
export type VocabularyName = (typeof vocabularyNames)[number];

const bundleRelativePath = join("node_modules", "node-llama-cpp", "llama", "gitRelease.bundle");

/** Finds node-llama-cpp's bundle by walking up from this file (works from src/ and dist/). */
export function findLlamaCppBundle(): string | undefined {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(directory, bundleRelativePath);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

function runGit(arguments_: readonly string[], stdoutPath?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const finish = async (): Promise<void> => {
      const output = stdoutPath === undefined ? undefined : await open(stdoutPath, "w");
      const child = spawn("git", arguments_, {
        stdio: ["ignore", output === undefined ? "ignore" : output.fd, "pipe"],
      });
      let errorText = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        if (errorText.length < 4000) errorText += chunk.toString();
      });
      child.on("error", (error) => {
        void output?.close();
        reject(error);
      });
      child.on("close", (code) => {
        void output?.close();
        if (code === 0) resolve();
        else reject(new Error(`git ${arguments_.join(" ")} exited with ${code}: ${errorText.trim()}`));
      });
    };
    finish().catch(reject);
  });
}

/** Path of the cached `ggml-vocab-<name>.gguf`, extracting it (and its sibling) on first use. */
export async function ensureVocabularyFile(name: VocabularyName, cacheDirectory: string): Promise<string> {
  const target = join(cacheDirectory, `ggml-vocab-${name}.gguf`);
  if (existsSync(target)) return target;
  const bundle = findLlamaCppBundle();
  if (bundle === undefined) {
    throw new GgufVocabUnavailableError({ vocab: name, problem: `${bundleRelativePath} was not found` });
  }
  await prepareModelsFolder(cacheDirectory, "TESSERA_MODELS_DIR");
  const work = await mkdtemp(join(cacheDirectory, ".tmp-bundle-"));
  try {
    const gitDirectory = join(work, "repository.git");
    await runGit(["init", "--quiet", "--bare", gitDirectory]);
    await runGit(["--git-dir", gitDirectory, "fetch", "--quiet", bundle, "HEAD:refs/heads/bundle"]);
    for (const vocabulary of vocabularyNames) {
      const destination = join(cacheDirectory, `ggml-vocab-${vocabulary}.gguf`);
      if (existsSync(destination)) continue;
      const temporary = join(work, `ggml-vocab-${vocabulary}.gguf`);
      await runGit(
        ["--git-dir", gitDirectory, "cat-file", "blob", `bundle:models/ggml-vocab-${vocabulary}.gguf`],
        temporary,
      );
      await rename(temporary, destination);
    }
  } catch (error) {
    throw new GgufVocabUnavailableError({ vocab: name, problem: (error as Error).message, cause: error });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return target;
}
