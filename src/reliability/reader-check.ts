// One mutated file through our TypeScript reader and model validation, in this process: the only
// acceptable outcomes are success or a GgufError subclass; any other exception is a finding.
import { GgufError } from "../gguf/errors/gguf-error.js";
import { readGgufFile } from "../gguf/gguf-reader.js";
import { validateLlamaModel } from "../gguf/llama-model-validation.js";

export interface ReaderCheckResult {
  /** accepted: parsed and a consistent llama model; rejected: a typed GgufError; untyped: anything else. */
  readonly outcome: "accepted" | "rejected" | "untyped";
  readonly stage: "parse" | "validate";
  readonly errorName?: string;
  readonly message?: string;
}

export async function checkWithReader(path: string): Promise<ReaderCheckResult> {
  let stage: ReaderCheckResult["stage"] = "parse";
  try {
    const info = await readGgufFile(path);
    stage = "validate";
    validateLlamaModel(info);
    return { outcome: "accepted", stage };
  } catch (error) {
    const errorName = error instanceof Error ? error.name : typeof error;
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    return { outcome: GgufError.isInstance(error) ? "rejected" : "untyped", stage, errorName, message };
  }
}
