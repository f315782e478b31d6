// Runs reader checks in a worker thread with a time limit and a heap limit (see reader-check-worker.ts).
// A hang or an out-of-memory ends the worker; the next check gets a fresh one.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { ReliabilityHarnessError } from "./errors/reliability-harness-error.js";
import type { ReaderCheckResult } from "./reader-check.js";

export type PooledReaderResult =
  | ReaderCheckResult
  | { readonly outcome: "hang" | "crash"; readonly stage: "parse"; readonly message: string };

export interface ReaderCheckPoolOptions {
  readonly timeoutMs?: number;
  /** Heap of the worker; a reader that outgrows it is a counted crash. Default 1024 MiB. */
  readonly heapMegabytes?: number;
  readonly workerScript?: string;
}

/** The compiled worker: next to this file when running from dist, else in dist/ of the package. */
export function defaultReaderWorkerScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const sibling = join(here, "reader-check-worker.js");
  if (existsSync(sibling)) return sibling;
  return join(here, "..", "..", "dist", "reliability", "reader-check-worker.js");
}

export class ReaderCheckPool {
  readonly #timeoutMs: number;
  readonly #heapMegabytes: number;
  readonly #script: string;
  #worker: Worker | undefined;
  #nextId = 0;

  constructor(options: ReaderCheckPoolOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 20_000;
    this.#heapMegabytes = options.heapMegabytes ?? 1024;
    this.#script = options.workerScript ?? defaultReaderWorkerScript();
    if (!existsSync(this.#script)) {
      throw new ReliabilityHarnessError(
        `the reader worker ${this.#script} does not exist`,
        "Run `npm run build` first (the worker runs compiled JavaScript).",
      );
    }
  }

  check(path: string): Promise<PooledReaderResult> {
    this.#worker ??= new Worker(this.#script, {
      resourceLimits: { maxOldGenerationSizeMb: this.#heapMegabytes },
    });
    const worker = this.#worker;
    const id = this.#nextId++;
    return new Promise<PooledReaderResult>((resolve) => {
      const finish = (result: PooledReaderResult, discard: boolean): void => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        if (discard) {
          if (this.#worker === worker) this.#worker = undefined;
          void worker.terminate();
        }
        resolve(result);
      };
      const onMessage = (message: { id: number; result: ReaderCheckResult }): void => {
        if (message.id === id) finish(message.result, false);
      };
      const onError = (error: Error): void =>
        finish({ outcome: "crash", stage: "parse", message: `${error.name}: ${error.message}` }, true);
      const onExit = (code: number): void =>
        finish({ outcome: "crash", stage: "parse", message: `the worker exited with ${code}` }, true);
      const timer = setTimeout(
        () =>
          finish({ outcome: "hang", stage: "parse", message: `no answer in ${this.#timeoutMs} ms` }, true),
        this.#timeoutMs,
      );
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      worker.postMessage({ id, path });
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}
