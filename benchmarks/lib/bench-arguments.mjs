// What the benchmark scripts share for their command lines: a bad argument, an unknown flag or an
// unknown model is one line naming it and exit 1, never a stack trace. Needs `npm run build` (dist/).
import { parseArgs } from "node:util";
import { resolveModel } from "../../dist/gguf/default-model.js";
import { readGgufFile } from "../../dist/gguf/gguf-reader.js";

/** Prints `<script>: <message>` and exits 1. */
export function failArgument(script, message) {
  console.error(`${script}: ${message}`);
  process.exit(1);
}

/** parseArgs's values for these options, or one line and exit 1 on an unknown flag or a missing value. */
export function parseBenchArguments(script, options) {
  try {
    return parseArgs({ options }).values;
  } catch (error) {
    failArgument(script, error.message);
  }
}

/**
 * The GGUF path of a file or preset (generated on first use), or one line and exit 1. The file's header is
 * parsed here: a file that is not GGUF (or a truncated one) would otherwise fail inside a child process or
 * the native loader, with a stack trace.
 */
export async function resolveBenchModel(script, fileOrPreset) {
  try {
    const path = await resolveModel(fileOrPreset);
    await readGgufFile(path);
    return path;
  } catch (error) {
    failArgument(script, `--model ${fileOrPreset}: ${error.message}`);
  }
}
