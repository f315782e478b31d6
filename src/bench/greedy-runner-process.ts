// The minimal C++ greedy runner (benchmarks/greedy-runner/) as a child process in its stdin "serve" mode:
// the model stays loaded, and each request is one JSON line answered by one. Its times come from its own
// clock, so the pipe between the processes is never part of a figure.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { prebuiltLibraryFolder } from "../backends/llamacpp/native-addon.js";
import { packageRoot } from "../support/package-folders.js";
import { trackBenchChild } from "./bench-children.js";
import { BenchTargetUnavailableError } from "./errors/bench-target-unavailable-error.js";
import type { FlashAttention } from "./flash-attention-setting.js";

export const greedyRunnerName = "greedy runner (C++)";

/** One greedy generation as the runner reports it (ms from its request start, before the template). */
export interface GreedyRunnerReport {
  /** FNV-1a (32-bit) of the request's text as the runner read it. */
  textHash: number;
  promptTokens: number;
  templateMs: number;
  tokenizeMs: number;
  firstTokenMs: number;
  generatedTokens: number;
  decodeTokensPerSecond: number;
  times: number[];
  pieces: string[];
}

export interface GreedyRunnerOptions {
  modelPath: string;
  threads: number;
  contextSize: number;
  batchSize?: number;
  /** Render the model's chat template (llama.cpp's built-in matcher) around every prompt. */
  chat: boolean;
  /** --flash-attn of the runner; default: llama.cpp's own ("auto"). */
  flashAttention?: FlashAttention;
}

/** The runner's arguments in serve mode; `libraries` is the folder of the prebuilt llama.cpp libraries. */
export function greedyRunnerArgs(options: GreedyRunnerOptions, libraries: string): string[] {
  return [
    ...["--mode", "serve", "--model", options.modelPath, "--libs", libraries],
    ...["--threads", String(options.threads), "--context", String(options.contextSize)],
    ...(options.batchSize !== undefined ? ["--batch", String(options.batchSize)] : []),
    ...(options.chat ? ["--chat"] : []),
    ...(options.flashAttention !== undefined ? ["--flash-attn", options.flashAttention] : []),
  ];
}

/**
 * The runner binary: $TESSERA_GREEDY_RUNNER, else .cache/greedy-runner/greedy-runner, built on first use
 * with benchmarks/greedy-runner/build.mjs (one g++ call). Throws BenchTargetUnavailableError saying why
 * when it cannot be had (no benchmarks/ folder in an installed package, no compiler, no headers).
 */
export function greedyRunnerBinary(): string {
  const override = process.env.TESSERA_GREEDY_RUNNER;
  if (override) {
    if (existsSync(override)) return override;
    throw new BenchTargetUnavailableError(
      greedyRunnerName,
      `TESSERA_GREEDY_RUNNER=${override} does not exist`,
    );
  }
  const root = packageRoot();
  const script = join(root, "benchmarks", "greedy-runner", "build.mjs");
  if (!existsSync(script)) {
    throw new BenchTargetUnavailableError(
      greedyRunnerName,
      "benchmarks/greedy-runner/ is not here (it ships with the repository, not the package); set TESSERA_GREEDY_RUNNER",
    );
  }
  try {
    // The script prints the binary's path and rebuilds only when the source is newer.
    return execFileSync(process.execPath, [script], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    })
      .trim()
      .split("\n")
      .at(-1)!;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim().split("\n").at(-1);
    throw new BenchTargetUnavailableError(
      greedyRunnerName,
      `could not build it: ${stderr || (error instanceof Error ? error.message : String(error))}`,
      { cause: error },
    );
  }
}

export class GreedyRunnerProcess {
  readonly #child: ChildProcess;
  readonly #lines: Interface;
  readonly #waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  #stderr = "";
  #exit: Error | null = null;
  /** Whether the runner renders a chat template (false when the model has none). */
  chatTemplate = false;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-2000);
    });
    this.#lines = createInterface({ input: child.stdout! });
    this.#lines.on("line", (line) => this.#waiting.shift()?.resolve(line));
    child.once("exit", (code, signal) => {
      this.#exit = new Error(
        `the greedy runner exited (${code ?? signal}): ${this.#stderr.trim().split("\n").at(-1) ?? ""}`,
      );
      for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#exit);
    });
  }

  static async start(options: GreedyRunnerOptions): Promise<GreedyRunnerProcess> {
    const binary = greedyRunnerBinary();
    const libraries = process.env.TESSERA_LLAMA_LIBRARIES_DIR ?? prebuiltLibraryFolder("");
    if (libraries === undefined) {
      throw new BenchTargetUnavailableError(
        greedyRunnerName,
        "node-llama-cpp's prebuilt libraries are missing",
      );
    }
    const child = spawn(binary, greedyRunnerArgs(options, libraries), { stdio: ["pipe", "pipe", "pipe"] });
    trackBenchChild(child);
    const runner = new GreedyRunnerProcess(child);
    const spawnError = new Promise<never>((_, reject) => child.once("error", reject));
    try {
      const ready = JSON.parse(await Promise.race([runner.#next(), spawnError])) as {
        chatTemplate?: boolean;
      };
      runner.chatTemplate = ready.chatTemplate === true;
    } catch (error) {
      runner.close();
      throw new BenchTargetUnavailableError(
        greedyRunnerName,
        `could not start: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    return runner;
  }

  #next(): Promise<string> {
    if (this.#exit !== null) return Promise.reject(this.#exit);
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  async #request(payload: Record<string, unknown>): Promise<unknown> {
    const answer = this.#next();
    this.#child.stdin!.write(`${JSON.stringify(payload)}\n`);
    const line = await answer;
    try {
      return JSON.parse(line);
    } catch {
      // A llama.cpp assertion prints its backtrace to stdout before the process aborts.
      throw new Error(
        `the greedy runner answered ${JSON.stringify(line.slice(0, 120))} instead of JSON (did it crash?)`,
      );
    }
  }

  /** Greedy decode of `prompt` for `maxTokens` tokens, with every piece's time. */
  async generate(prompt: string, maxTokens: number): Promise<GreedyRunnerReport> {
    return (await this.#request({ prompt, maxTokens })) as GreedyRunnerReport;
  }

  /** llama-bench's tg test on the prebuilt libraries: `tokens` random tokens after `depth` cached cells. */
  async tokenGeneration(tokens: number, depth: number): Promise<number> {
    return ((await this.#request({ tg: tokens, depth })) as { tokensPerSecond: number }).tokensPerSecond;
  }

  close(): void {
    this.#child.stdin?.end();
    if (this.#exit === null) this.#child.kill();
  }
}
