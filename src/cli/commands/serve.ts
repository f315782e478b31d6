// `tessera serve`: the OpenAI-compatible server in front of the local llama.cpp backend. Concurrent
// requests decode as parallel sequences of one context (--parallel); more wait (--queue) or get 503.
import { lookup } from "node:dns/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import type { FlashAttention } from "../../backends/llamacpp/addon-types.js";
import { LlamaCppBackend } from "../../backends/llamacpp/llama-cpp-backend.js";
import { checkApiKey } from "../../server/check-api-key.js";
import { startTesseraServer } from "../../server/create-server.js";
import { defaultCliModel } from "../default-models.js";
import { UnknownHostError } from "../errors/unknown-host-error.js";
import { flashAttentionOption, noHugePagesOption } from "../model-flags.js";
import { integerArgument } from "../number-arguments.js";
import { resolveModelPath } from "../open-model.js";

interface ServeFlags {
  model?: string;
  alias: string[];
  host: string;
  port: number;
  apiKey?: string;
  parallel: number;
  queue: number;
  threads?: number;
  contextSize?: number;
  flashAttn?: FlashAttention;
  hugePages?: boolean;
  maxBodyBytes: number;
}

async function serve(flags: ServeFlags, apiKeySource: string): Promise<void> {
  // Checked before the model loads: an empty key (often an unset shell variable) would guard nothing.
  checkApiKey(flags.apiKey, apiKeySource);
  // A host that does not resolve fails before the model is loaded, in the words of --host.
  await lookup(flags.host).catch((error: unknown) => {
    throw new UnknownHostError(flags.host, error);
  });
  const path = await resolveModelPath(flags.model);
  // A preset is served under the name it was asked by ("tiny-text", "llama-3.2-1b:q4_0"), a file under its
  // base name (the backend's default).
  const preset = flags.model === undefined || resolve(path) !== resolve(flags.model);
  const backend = await LlamaCppBackend.create({
    model: path,
    sequences: flags.parallel,
    ...(preset && { modelId: flags.model ?? defaultCliModel }),
    ...(flags.threads !== undefined && { threads: flags.threads }),
    ...(flags.contextSize !== undefined && { contextSize: flags.contextSize }),
    ...(flags.flashAttn !== undefined && { flashAttention: flags.flashAttn }),
    ...(flags.hugePages === false && { hugePages: false }),
  });
  let server: Awaited<ReturnType<typeof startTesseraServer>>;
  try {
    server = await startTesseraServer({
      backend,
      host: flags.host,
      port: flags.port,
      parallel: flags.parallel,
      queue: flags.queue,
      maxBodyBytes: flags.maxBodyBytes,
      aliases: flags.alias,
      ...(flags.apiKey !== undefined && { apiKey: flags.apiKey }),
    });
  } catch (error) {
    await backend.dispose();
    throw error;
  }
  if (flags.host !== "127.0.0.1" && flags.host !== "localhost" && flags.apiKey === undefined) {
    process.stderr.write(
      `tessera: warning: listening on ${flags.host} without --api-key; anyone who can reach it can use it\n`,
    );
  }
  // One line on stdout, so scripts (and tests) can read where the server listens.
  process.stdout.write(
    `tessera serve: ${[backend.modelId, ...flags.alias].join(", ")} at ${server.url}/v1 (parallel ${flags.parallel}, queue ${flags.queue})\n`,
  );
  // First signal: finish the running generations (up to 10 s) then close; a second one closes at once.
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  const deadline = Date.now() + 10_000;
  let forced = false;
  const force = () => {
    forced = true;
  };
  process.once("SIGINT", force);
  process.once("SIGTERM", force);
  while (server.limiter.active + server.limiter.waiting > 0 && Date.now() < deadline && !forced) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.off("SIGINT", force);
  process.off("SIGTERM", force);
  await server.close();
  await backend.dispose();
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description(
      "Serve a local GGUF model over the OpenAI-compatible API (/v1/chat/completions, /v1/completions)",
    )
    .option(
      "-m, --model <file|preset>",
      `a GGUF file or a preset name (default: ${defaultCliModel}, the trained text model)`,
    )
    .option(
      "--alias <name>",
      'another model name requests may send, such as "gpt-4o" (repeatable); others get 404 model_not_found',
      (name: string, names: string[]) => [...names, name],
      [] as string[],
    )
    .option("--host <address>", "interface to bind; anything but loopback needs care", "127.0.0.1")
    .option("--port <n>", "port (0 picks a free one)", integerArgument(0, 65535), 8080)
    .option(
      "--api-key <key>",
      "require 'Authorization: Bearer <key>' on /v1 and /metrics (default: TESSERA_API_KEY)",
      process.env.TESSERA_API_KEY,
    )
    .option(
      "--parallel <n>",
      "generations decoded together as parallel sequences",
      integerArgument(1, 256),
      4,
    )
    .option("--queue <n>", "requests that may wait for a slot before 503", integerArgument(0, 100_000), 32)
    .option("--threads <n>", "CPU threads for llama.cpp", integerArgument(1, 1024))
    .option("--context-size <n>", "tokens per sequence (prompt + output)", integerArgument(16))
    .addOption(flashAttentionOption())
    .addOption(noHugePagesOption())
    .option("--max-body-bytes <n>", "largest request body", integerArgument(1024), 16 * 1024 * 1024)
    .action(async (flags: ServeFlags, command: Command) => {
      // A key from the environment is named as such: the flag was never typed.
      await serve(flags, command.getOptionValueSource("apiKey") === "cli" ? "--api-key" : "TESSERA_API_KEY");
    });
}
