// Loads GGUF files through the native path in a child process, many files per child: a crash (the
// child dies by a signal or an abnormal exit) or a hang (no reply within the time limit, the child is
// killed) is counted and the next file gets a fresh child.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ReliabilityHarnessError } from "./errors/reliability-harness-error.js";
import type { NativeCheckReply, NativeCheckRequest } from "./native-check-protocol.js";

export type NativeCheckResult =
  | NativeCheckReply
  | {
      readonly id: number;
      readonly outcome: "crash" | "hang";
      readonly signal: string | null;
      readonly exitCode: number | null;
      /** The last lines llama.cpp or node wrote to stderr before dying (an assertion message). */
      readonly stderrTail: string;
      readonly milliseconds: number;
    };

export interface NativeLoadHarnessOptions {
  /** A file taking longer than this counts as a hang. Default 20 s. */
  readonly timeoutMs?: number;
  /** The compiled child script; defaults to dist/reliability/native-load-child.js. */
  readonly childScript?: string;
  /**
   * Run `validateBeforeNativeLoad` before the native load, as the loader will once it validates:
   * shows which crashes that validation prevents. Default false (the loader exactly as it is).
   */
  readonly preValidate?: boolean;
}

const stderrKept = 4000;
const startTimeoutMs = 30_000;
const startAttempts = 5;

/** The compiled child: next to this file when running from dist, else in dist/ of the package. */
export function defaultChildScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, "native-load-child.js");
  if (existsSync(sibling)) return sibling;
  return join(here, "..", "..", "dist", "reliability", "native-load-child.js");
}

interface Pending {
  readonly request: NativeCheckRequest;
  readonly started: number;
  readonly resolve: (result: NativeCheckResult) => void;
  readonly timer: NodeJS.Timeout;
}

export class NativeLoadHarness implements AsyncDisposable {
  readonly #timeoutMs: number;
  readonly #childScript: string;
  readonly #childArguments: readonly string[];
  #child: ChildProcessWithoutNullStreams | undefined;
  #ready: Promise<void> | undefined;
  #pending: Pending | undefined;
  #stderr = "";
  #nextId = 0;
  /** Children started so far (1 + the restarts after crashes and hangs). */
  childrenStarted = 0;

  constructor(options: NativeLoadHarnessOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 20_000;
    this.#childScript = options.childScript ?? defaultChildScript();
    this.#childArguments = options.preValidate === true ? ["--pre-validate"] : [];
    if (!existsSync(this.#childScript)) {
      throw new ReliabilityHarnessError(
        `the child script ${this.#childScript} does not exist`,
        "Run `npm run build` first (the child runs compiled JavaScript).",
      );
    }
  }

  /** Loads one file in the child; never rejects for anything the file does. */
  async check(path: string): Promise<NativeCheckResult> {
    await this.#startChild();
    const child = this.#child!;
    const request: NativeCheckRequest = { id: this.#nextId++, path };
    this.#stderr = "";
    return new Promise<NativeCheckResult>((resolve) => {
      const timer = setTimeout(() => this.#onTimeout(), this.#timeoutMs);
      this.#pending = { request, started: performance.now(), resolve, timer };
      child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  /**
   * Starts a child, retrying a few times: a start can fail for a moment while `npm run build` rewrites
   * dist/ under a long run. A child that never starts is a harness failure (thrown).
   */
  async #startChild(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#ensureChild();
      } catch (error) {
        if (attempt >= startAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  }

  #ensureChild(): Promise<void> {
    if (this.#child !== undefined && this.#ready !== undefined) return this.#ready;
    const child = spawn(process.execPath, [this.#childScript, ...this.#childArguments], {
      stdio: ["pipe", "pipe", "pipe"],
      // ggml's abort handler otherwise attaches gdb for a backtrace: seconds per crash.
      env: { ...process.env, GGML_NO_BACKTRACE: "1" },
    });
    this.childrenStarted++;
    this.#child = child;
    this.#stderr = "";
    child.stdin.on("error", () => {
      // The child died while we wrote; its exit handler reports that.
    });
    child.stderr.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-stderrKept);
    });
    const lines = createInterface({ input: child.stdout });
    this.#ready = new Promise<void>((resolve, reject) => {
      const startTimer = setTimeout(
        () => reject(new ReliabilityHarnessError("the child did not start within 30 s", "Check the build.")),
        startTimeoutMs,
      );
      lines.on("line", (line) => {
        let message: { ready?: boolean } & Partial<NativeCheckReply>;
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return; // not ours (a library writing to stdout)
        }
        if (message.ready === true) {
          clearTimeout(startTimer);
          resolve();
          return;
        }
        const pending = this.#pending;
        if (pending === undefined || message.id !== pending.request.id) return;
        this.#settle(message as NativeCheckReply);
      });
      child.on("exit", (exitCode, signal) => {
        clearTimeout(startTimer);
        // A child we killed after a hang, or closed: nothing of ours is waiting on it.
        if (this.#child !== child) return;
        this.#child = undefined;
        this.#ready = undefined;
        const pending = this.#pending;
        if (pending !== undefined) {
          this.#settle({
            id: pending.request.id,
            outcome: "crash",
            signal,
            exitCode,
            stderrTail: this.#stderr,
            milliseconds: performance.now() - pending.started,
          });
        } else {
          reject(
            new ReliabilityHarnessError(
              `the child exited before it was ready (code ${exitCode}, signal ${signal}): ${this.#stderr.trim()}`,
              "Check that the native addon builds and loads (`npm run build:native`).",
            ),
          );
        }
      });
    });
    return this.#ready;
  }

  #onTimeout(): void {
    const pending = this.#pending;
    const child = this.#child;
    if (pending === undefined) return;
    this.#settle({
      id: pending.request.id,
      outcome: "hang",
      signal: null,
      exitCode: null,
      stderrTail: this.#stderr,
      milliseconds: performance.now() - pending.started,
    });
    // Forget it first, so its exit is not reported as a crash of the next file.
    this.#child = undefined;
    this.#ready = undefined;
    child?.kill("SIGKILL");
  }

  #settle(result: NativeCheckResult): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    clearTimeout(pending.timer);
    pending.resolve(result);
  }

  /** Ends the child (stdin closed, then killed if it lingers). */
  async close(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    this.#ready = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
