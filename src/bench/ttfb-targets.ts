// The rows of `tessera bench ttfb`: tessera in-process, node-llama-cpp in-process, the C++ greedy runner
// (the honest limit on the same libraries), `tessera serve` and llama.cpp's llama-server over HTTP (when
// built; twice: compiled here for this CPU, and its code linked against the prebuilt libraries tessera
// loads, so that a difference in llama.cpp's build is not counted as the server's), the HTTP floor (a node:http server that does no work: what any served first token pays for the
// request's way there and back), a second chat turn (in-process and serve), 4 concurrent requests to each server, and every
// configured remote provider. Work per row, so that compared rows do the same: the in-process rows and
// the runner render the model's chat template around the prompt; serve and llama-server both take bare
// text on /v1/completions (llama-server's chat endpoint rejects the random-weight model's output); the
// serve second turn is a chat (/v1/chat/completions).
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { LlamaCppBackend } from "../backends/llamacpp/llama-cpp-backend.js";
import { packageRoot } from "../support/package-folders.js";
import type { BenchTarget } from "./bench-target.js";
import { BenchTargetUnavailableError } from "./errors/bench-target-unavailable-error.js";
import {
  benchFlashAttentionDefault,
  type FlashAttention,
  nodeLlamaCppFlashAttention,
} from "./flash-attention-setting.js";
import { findPeerBinary, peerEnvironment, peerMissingNote } from "./peer-binaries.js";
import { type RemoteSpec, remoteTarget } from "./remote-targets.js";
import { freePort, ServerProcess } from "./server-process.js";
import { BackendTarget } from "./targets/backend-target.js";
import { ConcurrentTarget } from "./targets/concurrent-target.js";
import { GreedyRunnerTarget } from "./targets/greedy-runner-target.js";
import { NodeLlamaCppTarget } from "./targets/node-llama-cpp-target.js";
import { OpenAIHttpTarget } from "./targets/openai-http-target.js";

export const localRows = [
  "tessera",
  "node-llama-cpp",
  "greedy-runner",
  "tessera-serve",
  "llama-server",
  "llama-server-prebuilt",
  "http-floor",
  "tessera-2nd-turn",
  "tessera-serve-2nd-turn",
  "tessera-serve-4x",
  "llama-server-4x",
] as const;
export type LocalRow = (typeof localRows)[number];

/** Requests sent at once by the concurrent rows. */
export const concurrentRequests = 4;

export interface TtfbTargetOptions {
  modelPath: string;
  modelId: string;
  threads: number;
  contextSize: number;
  rows: ReadonlyArray<LocalRow>;
  remotes: ReadonlyArray<RemoteSpec>;
  /** Flash attention of every local row; default "off" (tessera's CPU default; the peers' is "auto"). */
  flashAttention?: FlashAttention;
  /** Every HTTP row opens a new connection per request (default: kept-alive connections). */
  newConnections?: boolean;
}

/** The setting every local row runs with. */
const flashAttentionOf = (options: TtfbTargetOptions): FlashAttention =>
  options.flashAttention ?? benchFlashAttentionDefault;

function tesseraInProcess(options: TtfbTargetOptions, secondTurn = false): BenchTarget {
  return new BackendTarget({
    name: secondTurn ? "tessera (in-process, 2nd turn)" : "tessera (in-process)",
    secondTurn,
    jitCompiled: true,
    open: async () => {
      const { LlamaCppBackend } = await import("../backends/llamacpp/llama-cpp-backend.js");
      return LlamaCppBackend.create({
        model: options.modelPath,
        modelId: options.modelId,
        threads: options.threads,
        // A second turn holds the first turn's prompt and answer too.
        contextSize: secondTurn ? options.contextSize * 2 : options.contextSize,
        sequences: 1,
        flashAttention: flashAttentionOf(options),
      });
    },
    dispose: (backend) => (backend as LlamaCppBackend).dispose(),
    // The text's own tokens, without BOS, as node-llama-cpp's row counts them: a prompt's length is the
    // same whichever row sizes it.
    countTokens: async (backend, text) =>
      (backend as LlamaCppBackend).model.tokenize(text, { addSpecial: false }).length,
    modelOptions: { ignoreEos: true } as never,
  });
}

interface ServerRowOptions {
  extraBody?: Record<string, unknown>;
  api: "chat" | "completions";
  secondTurn?: boolean;
  firstTokenTimings?: boolean;
  /** A Node server (tessera serve, the HTTP floor): it gets the JIT warm-up. */
  jitCompiled?: boolean;
}

/**
 * A row whose server is a child process started in prepare() and stopped in close(); its requests keep
 * their connections unless options.newConnections.
 */
function serverRow(
  options: TtfbTargetOptions,
  name: string,
  start: (port: number, signal: AbortSignal) => Promise<ServerProcess>,
  { extraBody, api, secondTurn = false, firstTokenTimings = false, jitCompiled = false }: ServerRowOptions,
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
    secondTurn,
    firstTokenTimings,
    jitCompiled,
    newConnections: options.newConnections === true,
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

/** The arguments of a `tessera serve` row (after node itself): `entry` is dist/cli/main.js. */
export function tesseraServeArgs(
  options: TtfbTargetOptions,
  entry: string,
  port: number,
  parallel: number,
  contextSize: number,
): string[] {
  return [
    entry,
    "serve",
    ...["--model", options.modelPath, "--port", String(port), "--threads", String(options.threads)],
    ...["--context-size", String(contextSize), "--parallel", String(parallel)],
    // Every server row asks for "local"; serve answers an unknown model name with 404.
    ...["--alias", "local"],
    ...["--flash-attn", flashAttentionOf(options)],
  ];
}

function startTesseraServe(
  options: TtfbTargetOptions,
  name: string,
  parallel: number,
  contextSize: number,
): (port: number, signal: AbortSignal) => Promise<ServerProcess> {
  return (port, signal) => {
    const entry = join(packageRoot(), "dist", "cli", "main.js");
    if (!existsSync(entry))
      throw new BenchTargetUnavailableError(name, "dist/ is not built; run `npm run build`");
    return ServerProcess.start({
      name,
      command: process.execPath,
      args: tesseraServeArgs(options, entry, port, parallel, contextSize),
      readyUrl: `http://127.0.0.1:${port}/health`,
      // Serve records each request's first-token stages for GET /debug/first-token/<id>.
      env: { ...process.env, TESSERA_SERVE_TIMINGS: "1" },
      signal,
    });
  };
}

/** The arguments of a llama-server row with `parallel` slots. */
export function llamaServerArgs(options: TtfbTargetOptions, port: number, parallel: number): string[] {
  return [
    ...["-m", options.modelPath, "--host", "127.0.0.1", "--port", String(port)],
    // -c is the whole cache, split between the -np slots: each slot gets the context of tessera's.
    ...["-t", String(options.threads), "-c", String(options.contextSize * parallel), "-np", String(parallel)],
    ...["-fa", flashAttentionOf(options)],
    "--no-webui",
  ];
}

/** The name of the row whose server does no work (src/bench/http-floor-server.ts). */
export const httpFloorName = "HTTP floor (no model)";

function startHttpFloorServer(): (port: number, signal: AbortSignal) => Promise<ServerProcess> {
  return (port, signal) => {
    const entry = join(packageRoot(), "dist", "bench", "http-floor-server.js");
    if (!existsSync(entry))
      throw new BenchTargetUnavailableError(httpFloorName, "dist/ is not built; run `npm run build`");
    return ServerProcess.start({
      name: httpFloorName,
      command: process.execPath,
      args: [entry, String(port)],
      readyUrl: `http://127.0.0.1:${port}/health`,
      signal,
    });
  };
}

/** The llama-server row built on node-llama-cpp's prebuilt libraries (scripts/bench-peers.mjs). */
export const llamaServerPrebuiltName = "llama-server (HTTP, prebuilt libs)";

function startLlamaServer(
  options: TtfbTargetOptions,
  name: string,
  parallel: number,
  binaryName: "llama-server" | "llama-server-prebuilt" = "llama-server",
): (port: number, signal: AbortSignal) => Promise<ServerProcess> {
  return (port, signal) => {
    const binary = findPeerBinary(binaryName);
    if (binary === null) throw new BenchTargetUnavailableError(name, peerMissingNote(binaryName));
    return ServerProcess.start({
      name,
      command: binary,
      args: llamaServerArgs(options, port, parallel),
      env: peerEnvironment(),
      readyUrl: `http://127.0.0.1:${port}/health`,
      signal,
    });
  };
}

// Both servers take bare text on /v1/completions, ignoring end-of-sequence. llama-server keeps the
// prompt's KV cells for the next request; the unique prompts defeat that, and cache_prompt: false says so.
const servePeerBody = { ignore_eos: true };
const llamaServerBody = { ignore_eos: true, cache_prompt: false };

/**
 * The pairs `bench ttfb` compares run by run: tessera against the other in-process stack and against
 * the C++ limit, serve against llama-server and against tessera in-process (what HTTP adds), the second
 * turn against the first, and the concurrent rows against each other.
 */
export function ttfbComparisons(
  targets: ReadonlyArray<BenchTarget>,
): Array<{ target: string; reference: string }> {
  const names = new Set(targets.map((target) => target.name));
  const pairs = [
    ["tessera (in-process)", "node-llama-cpp (in-process)"],
    ["tessera (in-process)", "greedy runner (C++)"],
    ["node-llama-cpp (in-process)", "greedy runner (C++)"],
    ["tessera serve (HTTP)", "llama-server (HTTP)"],
    // The like-for-like reference: llama-server's code on the llama.cpp build tessera loads.
    ["tessera serve (HTTP)", llamaServerPrebuiltName],
    ["tessera serve (HTTP)", "tessera (in-process)"],
    ["tessera (in-process, 2nd turn)", "tessera (in-process)"],
    ["tessera serve (HTTP, 2nd turn)", "tessera (in-process, 2nd turn)"],
    [
      `tessera serve (HTTP, ${concurrentRequests} at once)`,
      `llama-server (HTTP, ${concurrentRequests} at once)`,
    ],
  ];
  return pairs
    .filter(([target, reference]) => names.has(target!) && names.has(reference!))
    .map(([target, reference]) => ({ target: target!, reference: reference! }));
}

export function ttfbTargets(options: TtfbTargetOptions): BenchTarget[] {
  const targets: BenchTarget[] = [];
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
          flashAttention: nodeLlamaCppFlashAttention(flashAttentionOf(options)),
        }),
      );
    }
    if (row === "greedy-runner") {
      targets.push(
        new GreedyRunnerTarget({
          modelPath: options.modelPath,
          threads: options.threads,
          contextSize: options.contextSize,
          flashAttention: flashAttentionOf(options),
        }),
      );
    }
    if (row === "tessera-serve") {
      const name = "tessera serve (HTTP)";
      targets.push(
        serverRow(options, name, startTesseraServe(options, name, 1, options.contextSize), {
          extraBody: servePeerBody,
          api: "completions",
          firstTokenTimings: true,
          jitCompiled: true,
        }),
      );
    }
    if (row === "llama-server") {
      const name = "llama-server (HTTP)";
      targets.push(
        serverRow(options, name, startLlamaServer(options, name, 1), {
          extraBody: llamaServerBody,
          api: "completions",
        }),
      );
    }
    if (row === "llama-server-prebuilt") {
      const start = startLlamaServer(options, llamaServerPrebuiltName, 1, "llama-server-prebuilt");
      targets.push(
        serverRow(options, llamaServerPrebuiltName, start, {
          extraBody: llamaServerBody,
          api: "completions",
        }),
      );
    }
    if (row === "http-floor") {
      // The same request as the serve rows; the server reads and parses it, then answers at once.
      targets.push(
        serverRow(options, httpFloorName, startHttpFloorServer(), {
          extraBody: servePeerBody,
          api: "completions",
          jitCompiled: true,
        }),
      );
    }
    if (row === "tessera-2nd-turn") targets.push(tesseraInProcess(options, true));
    if (row === "tessera-serve-2nd-turn") {
      const name = "tessera serve (HTTP, 2nd turn)";
      const start = startTesseraServe(options, name, 1, options.contextSize * 2);
      targets.push(
        serverRow(options, name, start, {
          extraBody: servePeerBody,
          api: "chat",
          secondTurn: true,
          firstTokenTimings: true,
          jitCompiled: true,
        }),
      );
    }
    if (row === "tessera-serve-4x") {
      const name = `tessera serve (HTTP, ${concurrentRequests} at once)`;
      const start = startTesseraServe(options, name, concurrentRequests, options.contextSize);
      const inner = serverRow(options, name, start, {
        extraBody: servePeerBody,
        api: "completions",
        jitCompiled: true,
      });
      targets.push(new ConcurrentTarget(inner, concurrentRequests));
    }
    if (row === "llama-server-4x") {
      const name = `llama-server (HTTP, ${concurrentRequests} at once)`;
      const inner = serverRow(options, name, startLlamaServer(options, name, concurrentRequests), {
        extraBody: llamaServerBody,
        api: "completions",
      });
      targets.push(new ConcurrentTarget(inner, concurrentRequests));
    }
  }
  for (const remote of options.remotes) {
    targets.push(remoteTarget(remote, { newConnections: options.newConnections === true }));
  }
  return targets;
}
