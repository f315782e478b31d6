// Pre-load validation used by the fuzz harness (`--pre-validate`) and the regression tests: the
// llama.cpp hazard rules (which the loader `loadLlamaModel` also runs; they live in the gguf layer) plus
// the full llama-architecture consistency check.
import { GgufModelMismatchError } from "../gguf/errors/gguf-model-mismatch-error.js";
import type { GgufFileInfo } from "../gguf/gguf-file-info.js";
import { readGgufFile } from "../gguf/gguf-reader.js";
import { findLlamaCppHazards } from "../gguf/llama-cpp-hazards.js";
import { validateLlamaModel } from "../gguf/llama-model-validation.js";

export {
  findBadEpsilons,
  findBadExpertCounts,
  findDuplicateTokens,
  findImpossibleBlockCount,
  findLlamaCppHazards,
  findUnusableTensorTypes,
  findUnusableTokenizer,
} from "../gguf/llama-cpp-hazards.js";

/** Reads the header, rejects what would crash llama.cpp; llama-architecture files are fully validated. */
export async function validateBeforeNativeLoad(path: string): Promise<GgufFileInfo> {
  const info = await readGgufFile(path);
  const problems = findLlamaCppHazards(info);
  if (problems.length > 0) throw new GgufModelMismatchError({ problems });
  const architecture = info.metadataByKey.get("general.architecture");
  if (architecture?.type === "string" && architecture.value === "llama" && info.tensors.length > 0) {
    validateLlamaModel(info);
  }
  return info;
}
