// Runs option fuzz cases in a child process (option-fuzz-child.ts), many per child: a case that kills
// the child (a signal, an abnormal exit) is a crash, one without a reply within the time limit is a
// hang (the child is killed); either way the next case gets a fresh child.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ReliabilityHarnessError } from "./errors/reliability-harness-error.js";
import type { OptionFuzzReady, OptionFuzzReply, OptionFuzzRequest } from "./option-fuzz-protocol.js";

export type OptionFuzzResult =
  | OptionFuzzReply
  | {
      readonly id: number;
      readonly outcome: "crash" | "hang";
      readonly signal: string | null;
      readonly exitCode: number | null;
      /** What llama.cpp or node wrote to stderr last (the assertion). */
      readonly stderrTail: string;
      readonly milliseconds: number;
    };

const stderrKept = 4000;
const startTimeoutMs = 60_000;
const startAttempts = 5;

/** The compiled child: next to this file when running from dist, else in dist/ of the package. */
export function optionFuzzChildScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, "option-fuzz-child.js");
  if (existsSync(sibling)) return sibling;
  return join(here, "..", "..", "dist", "reliability", "option-fuzz-child.js");
}

interface Pending {
  readonly id: number;
  readonly started: number;
  readonly resolve: (result: OptionFuzzResult) => void;
  readonly timer: NodeJS.Timeout;
}

export class OptionFuzzHarness implements AsyncDisposable {
  readonly #runSeed: number;
  readonly #timeoutMs: number;
  readonly #script: string;
  #child: ChildProcessWithoutNullStreams | undefined;
  #ready: Promise<number> | undefined;
  #pending: Pending | undefined;
  #stderr = "";
  #nextId = 0;
  childrenStarted = 0;

  constructor(runSeed: number, timeoutMs: number, script = optionFuzzChildScript()) {
    this.#runSeed = runSeed;
    this.#timeoutMs = timeoutMs;
    this.#script = script;
    if (!existsSync(script)) {
      throw new ReliabilityHarnessError(
        `the child script ${script} does not exist`,
        "Run `npm run build` first (the child runs compiled JavaScript).",
      );
    }
  }

  /** The vocabulary size the child's model reports (cases depend on it); starts a child if none runs. */
  vocabSize(): Promise<number> {
    return this.#startChild();
  }

  /** Runs case `index`; never rejects for anything the case does. */
  async run(index: number): Promise<OptionFuzzResult> {
    await this.#startChild();
    const child = this.#child!;
    const request: OptionFuzzRequest = { id: this.#nextId++, index };
    this.#stderr = "";
    return new Promise<OptionFuzzResult>((resolve) => {
      const timer = setTimeout(() => this.#onTimeout(), this.#timeoutMs);
      this.#pending = { id: request.id, started: performance.now(), resolve, timer };
      child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }

  /**
   * Starts a child, retrying a few times: a start fails for a moment while `npm run build` rewrites
   * dist/ under a long run (seen after 8 minutes of a 2000-case run). A child that never starts is a
   * harness failure (thrown).
   */
  async #startChild(): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#ensureChild();
      } catch (error) {
        if (attempt >= startAttempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, 3000));
      }
    }
  }

  #ensureChild(): Promise<number> {
    if (this.#child !== undefined && this.#ready !== undefined) return this.#ready;
    const child = spawn(process.execPath, [this.#script, String(this.#runSeed)], {
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
    this.#ready = new Promise<number>((resolve, reject) => {
      const startTimer = setTimeout(
        () => reject(new ReliabilityHarnessError("the child did not start within 60 s", "Check the build.")),
        startTimeoutMs,
      );
      lines.on("line", (line) => {
        let message: Partial<OptionFuzzReady & OptionFuzzReply>;
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return; // not ours (a library writing to stdout)
        }
        if (message.ready === true) {
          clearTimeout(startTimer);
          resolve(message.vocabSize ?? 0);
          return;
        }
        if (this.#pending !== undefined && message.id === this.#pending.id) {
          this.#settle(message as OptionFuzzReply);
        }
      });
      child.on("exit", (exitCode, signal) => {
        clearTimeout(startTimer);
        if (this.#child !== child) return; // killed after a hang, or closed
        this.#child = undefined;
        this.#ready = undefined;
        const pending = this.#pending;
        if (pending === undefined) {
          reject(
            new ReliabilityHarnessError(
              `the child exited before it was ready (code ${exitCode}, signal ${signal}): ${this.#stderr.trim()}`,
              "Check that the native addon builds and loads (`npm run build:native`).",
            ),
          );
          return;
        }
        this.#settle({
          id: pending.id,
          outcome: "crash",
          signal,
          exitCode,
          stderrTail: this.#stderr,
          milliseconds: performance.now() - pending.started,
        });
      });
    });
    return this.#ready;
  }

  #onTimeout(): void {
    const pending = this.#pending;
    const child = this.#child;
    if (pending === undefined) return;
    this.#settle({
      id: pending.id,
      outcome: "hang",
      signal: null,
      exitCode: null,
      stderrTail: this.#stderr,
      milliseconds: performance.now() - pending.started,
    });
    // Forgotten first, so its exit is not reported as a crash of the next case.
    this.#child = undefined;
    this.#ready = undefined;
    child?.kill("SIGKILL");
  }

  #settle(result: OptionFuzzResult): void {
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    clearTimeout(pending.timer);
    pending.resolve(result);
  }

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
