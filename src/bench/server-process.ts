// Starts an HTTP server as a child process for a benchmark row (tessera serve, llama-server), waits until
// it answers, and stops it afterwards. Its output is kept (last lines only) to explain a failed start.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { trackBenchChild } from "./bench-children.js";
import { BenchTargetUnavailableError } from "./errors/bench-target-unavailable-error.js";

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("could not find a free port");
  return address.port;
}

export interface ServerProcessOptions {
  name: string;
  command: string;
  args: string[];
  /** GET until it answers 200. */
  readyUrl: string;
  readyTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export class ServerProcess {
  readonly #child: ChildProcess;
  readonly #name: string;
  #output = "";
  #exited = false;

  private constructor(child: ChildProcess, name: string) {
    this.#child = child;
    this.#name = name;
    const keep = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString("utf8")).slice(-4000);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    child.once("exit", () => {
      this.#exited = true;
    });
  }

  /** How the process exited (its exit code or signal), or null while it runs: a row's requests then fail, this says why. */
  get exitStatus(): number | NodeJS.Signals | null {
    return this.#exited ? (this.#child.exitCode ?? this.#child.signalCode) : null;
  }

  /** The last lines the process printed. */
  get outputTail(): string {
    return this.#output.trim().split("\n").slice(-5).join("\n");
  }

  static async start(options: ServerProcessOptions): Promise<ServerProcess> {
    const child = spawn(options.command, options.args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: options.env ?? process.env,
    });
    trackBenchChild(child);
    const server = new ServerProcess(child, options.name);
    const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
    const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
    try {
      while (Date.now() < deadline) {
        options.signal?.throwIfAborted();
        const failure = await Promise.race([
          spawnError,
          new Promise<null>((resolve) => setTimeout(() => resolve(null), 0)),
        ]);
        if (failure !== null)
          throw new BenchTargetUnavailableError(
            options.name,
            `could not start ${options.command}: ${failure.message}`,
          );
        if (server.#exited) {
          throw new BenchTargetUnavailableError(
            options.name,
            `the server exited before it was ready (exit ${child.exitCode ?? child.signalCode}): ${server.outputTail}`,
          );
        }
        try {
          const response = await fetch(options.readyUrl, { signal: AbortSignal.timeout(2000) });
          await response.arrayBuffer();
          if (response.ok) return server;
        } catch {
          // Not listening yet.
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      throw new BenchTargetUnavailableError(
        options.name,
        `not ready at ${options.readyUrl} after ${options.readyTimeoutMs ?? 120_000} ms: ${server.outputTail}`,
      );
    } catch (error) {
      await server.stop();
      throw error;
    }
  }

  /** SIGTERM, then SIGKILL after 5 s. */
  async stop(): Promise<void> {
    if (this.#exited || this.#child.exitCode !== null) return;
    const exited = once(this.#child, "exit");
    this.#child.kill("SIGTERM");
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }

  get name(): string {
    return this.#name;
  }
}
