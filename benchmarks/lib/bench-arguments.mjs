// What the benchmark scripts share for their command lines: a bad argument, an unknown flag or an
// unknown model is one line naming it and exit 1, never a stack trace. resolveBenchModel needs
// `npm run build` (dist/); the rest does not, so scripts that only read results can use it too.
import { parseArgs } from "node:util";

/** Prints `<script>: <message>` and exits 1. */
export function failArgument(script, message) {
  // One line, also for Node's parseArgs messages that span several.
  console.error(`${script}: ${String(message).replace(/\s*\n\s*/g, " ")}`);
  process.exit(1);
}

/** parseArgs's values for these options, or one line and exit 1 on an unknown flag or a missing value. */
export function parseBenchArguments(script, options) {
  return parseBenchCommandLine(script, options, 0).values;
}

/**
 * parseArgs's values and exactly `positionals` positional arguments (`usage` names them), or one line and
 * exit 1.
 */
export function parseBenchCommandLine(script, options, positionals, usage = "") {
  let parsed;
  try {
    parsed = parseArgs({ options, allowPositionals: positionals > 0 });
  } catch (error) {
    failArgument(script, error.message);
  }
  if (parsed.positionals.length !== positionals)
    failArgument(
      script,
      `expected ${positionals} argument(s), got ${parsed.positionals.length}${usage ? `: ${usage}` : ""}`,
    );
  return parsed;
}

/**
 * The GGUF path of a file or preset (generated on first use), or one line and exit 1. The file's header is
 * parsed here: a file that is not GGUF (or a truncated one) would otherwise fail inside a child process or
 * the native loader, with a stack trace.
 */
export async function resolveBenchModel(script, fileOrPreset) {
  let resolveModel;
  let readGgufFile;
  try {
    ({ resolveModel } = await import("../../dist/gguf/default-model.js"));
    ({ readGgufFile } = await import("../../dist/gguf/gguf-reader.js"));
  } catch {
    failArgument(script, "dist/ is not built: run `npm run build` first");
  }
  try {
    const path = await resolveModel(fileOrPreset);
    await readGgufFile(path);
    return path;
  } catch (error) {
    failArgument(script, `--model ${fileOrPreset}: ${error.message}`);
  }
}
