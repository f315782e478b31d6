// `tessera inspect --serve`: the live inspector on 127.0.0.1 (a page that streams tokens, forks at any
// token by copying KV cells, and re-samples with other settings). It prints the page's URL with its
// per-run token and opens nothing; Ctrl-C stops it.
import { basename } from "node:path";
import type { LlamaContextOptions } from "../../backends/llamacpp/llama-context.js";
import { type LoadLlamaModelOptions, loadLlamaModel } from "../../backends/llamacpp/llama-model.js";
import { startInspectorServer } from "../../inspector/live/inspector-server.js";
import { InspectorSession } from "../../inspector/live/inspector-session.js";
import type { ModelFlags } from "../model-flags.js";
import { resolveModelPath } from "../open-model.js";

export interface InspectServeFlags extends ModelFlags {
  port: number;
  sequences: number;
}

/** The load and context options the flags ask for (unset flags are left out, so the defaults apply). */
export function inspectorModelOptions(flags: InspectServeFlags): {
  load: LoadLlamaModelOptions;
  context: LlamaContextOptions;
} {
  return {
    load: { ...(flags.hugePages === false && { hugePages: false }) },
    context: {
      sequences: flags.sequences,
      ...(flags.threads !== undefined && { threads: flags.threads }),
      ...(flags.contextSize !== undefined && { contextSize: flags.contextSize }),
      ...(flags.flashAttn !== undefined && { flashAttention: flags.flashAttn }),
    },
  };
}

export async function serveInspector(flags: InspectServeFlags): Promise<void> {
  // The same model `run` uses when --model is not given (resolveModelPath knows the default).
  const path = await resolveModelPath(flags.model);
  const options = inspectorModelOptions(flags);
  const model = await loadLlamaModel(path, options.load);
  const context = await model.createContext(options.context);
  const session = new InspectorSession(model, context, flags.model ?? basename(path, ".gguf"));
  let server: Awaited<ReturnType<typeof startInspectorServer>>;
  try {
    server = await startInspectorServer({ session, port: flags.port });
  } catch (error) {
    model.dispose();
    throw error;
  }
  process.stdout.write(
    `${server.url}\nthe live inspector of ${session.modelId} (${flags.sequences} sequences); open the URL in a browser, Ctrl-C stops it\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  await session.close();
  model.dispose();
}
