// The rows of `tessera bench ttfb`: tessera in-process, node-llama-cpp in-process, `tessera serve` over
// HTTP, llama.cpp's llama-server over HTTP (when built), and every configured remote provider. Both
// in-process rows and serve render the model's chat template; llama-server takes bare text.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import type { BenchTarget } from "./bench-target.js";
import { BenchTargetUnavailableError } from "./errors/bench-target-unavailable-error.js";
import { findPeerBinary, packageRoot, peerMissingNote } from "./peer-binaries.js";
import { type RemoteSpec, remoteTarget } from "./remote-targets.js";
import { freePort, ServerProcess } from "./server-process.js";
import { BackendTarget } from "./targets/backend-target.js";
import { NodeLlamaCppTarget } from "./targets/node-llama-cpp-target.js";
import { OpenAIHttpTarget } from "./targets/openai-http-target.js";

export type LocalRow = "tessera" | "node-llama-cpp" | "tessera-serve" | "llama-server";
export const localRows: readonly LocalRow[] = ["tessera", "node-llama-cpp", "tessera-serve", "llama-server"];

export interface TtfbTargetOptions {
  modelPath: string;
  modelId: string;
  threads: number;
  contextSize: number;
  rows: ReadonlyArray<LocalRow>;
  remotes: ReadonlyArray<RemoteSpec>;
}

function tesseraInProcess(options: TtfbTargetOptions): BenchTarget {
  return new BackendTarget({
    name: "tessera (in-process)",
    open: async () => {
      const { LlamaCppBackend } = await import("../backends/llamacpp/llama-cpp-backend.js");
      return LlamaCppBackend.create({
        model: options.modelPath,
        modelId: options.modelId,
        threads: options.threads,
        contextSize: options.contextSize,
        sequences: 1,
      });
    },
    dispose: (backend) => (backend as LlamaCppBackend).dispose(),
    countTokens: async (backend, text) => (backend as LlamaCppBackend).model.tokenize(text).length,
    modelOptions: { ignoreEos: true } as never,
  });
}

/** A row whose server is a child process started in prepare() and stopped in close(). */
function serverRow(
  name: string,
  start: (port: number, signal: AbortSignal) => Promise<ServerProcess>,
  extraBody?: Record<string, unknown>,
  api: "chat" | "completions" = "chat",
) {
  let server: ServerProcess | undefined;
  let port = 0;
  const target: OpenAIHttpTarget = new OpenAIHttpTarget({
    name,
    get baseUrl() {
      return `http://127.0.0.1:${port}/v1`;
    },
    model: "local",
    api,
    ...(extraBody !== undefined && { extraBody }),
    prepare: async (signal) => {
      port = await freePort();
      server = await start(port, signal);
    },
    close: async () => {
      await server?.stop();
    },
  });
  return target;
}

export function ttfbTargets(options: TtfbTargetOptions): BenchTarget[] {
  const targets: BenchTarget[] = [];
  const threads = String(options.threads);
  const contextSize = String(options.contextSize);
  for (const row of options.rows) {
    if (row === "tessera") targets.push(tesseraInProcess(options));
    if (row === "node-llama-cpp") {
      targets.push(
        new NodeLlamaCppTarget({
          modelPath: options.modelPath,
          threads: options.threads,
          contextSize: options.contextSize,
          // tessera's row renders the chat template; so does this one (the same work on both sides).
          renderChatTemplate: true,
        }),
      );
    }
    if (row === "tessera-serve") {
      targets.push(
        serverRow(
          "tessera serve (HTTP)",
          (port, signal) => {
            const entry = join(packageRoot(), "dist", "cli", "main.js");
            if (!existsSync(entry))
              throw new BenchTargetUnavailableError(
                "tessera serve (HTTP)",
                "dist/ is not built; run `npm run build`",
              );
            return ServerProcess.start({
              name: "tessera serve (HTTP)",
              command: process.execPath,
              args: [
                entry,
                "serve",
                "--model",
                options.modelPath,
                "--port",
                String(port),
                "--threads",
                threads,
                "--context-size",
                contextSize,
                "--parallel",
                "1",
                // Every server row asks for "local"; serve answers an unknown model name with 404.
                "--alias",
                "local",
              ],
              readyUrl: `http://127.0.0.1:${port}/health`,
              signal,
            });
          },
          { ignore_eos: true },
        ),
      );
    }
    if (row === "llama-server") {
      targets.push(
        serverRow(
          "llama-server (HTTP)",
          (port, signal) => {
            const binary = findPeerBinary("llama-server");
            if (binary === null)
              throw new BenchTargetUnavailableError("llama-server (HTTP)", peerMissingNote("llama-server"));
            return ServerProcess.start({
              name: "llama-server (HTTP)",
              command: binary,
              args: [
                "-m",
                options.modelPath,
                "--host",
                "127.0.0.1",
                "--port",
                String(port),
                "-t",
                threads,
                "-c",
                contextSize,
                "-np",
                "1",
                "--no-webui",
              ],
              readyUrl: `http://127.0.0.1:${port}/health`,
              signal,
            });
          },
          // llama-server keeps the prompt's KV cells for the next request; the unique prompts defeat that.
          { ignore_eos: true, cache_prompt: false },
          // Its chat endpoint parses the output in the model's chat format and sends an error event when the
          // tiny model's random text does not fit; /v1/completions streams the text as it is.
          "completions",
        ),
      );
    }
  }
  for (const remote of options.remotes) targets.push(remoteTarget(remote));
  return targets;
}
