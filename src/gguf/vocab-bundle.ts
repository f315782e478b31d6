// Takes vocabulary GGUFs (real tokenizers: tokens, scores, types, merges, special ids) out of the
// llama.cpp source bundle that node-llama-cpp ships, once, into a cache folder. git reads the bundle;
// each extraction uses its own temporary repository and lands by rename, so concurrent first uses
// never see a half-written file.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { findPackageFolder } from "../support/package-folders.js";
import { GgufVocabUnavailableError } from "./errors/gguf-vocab-unavailable-error.js";
import { prepareModelsFolder } from "./prepare-models-folder.js";

export const vocabularyNames = ["llama-spm", "llama-bpe"] as const;
export type VocabularyName = (typeof vocabularyNames)[number];

/** node-llama-cpp's llama.cpp source bundle, where node_modules has it (from src/ and dist/ alike). */
export function findLlamaCppBundle(): string | undefined {
  const root = findPackageFolder("node-llama-cpp");
  const candidate = root === undefined ? undefined : join(root, "llama", "gitRelease.bundle");
  return candidate !== undefined && existsSync(candidate) ? candidate : undefined;
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
    throw new GgufVocabUnavailableError({
      vocab: name,
      problem: "node_modules/node-llama-cpp/llama/gitRelease.bundle was not found",
    });
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
