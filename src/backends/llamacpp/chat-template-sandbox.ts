import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { chatTemplateWorkerSource } from "./chat-template-worker-source.js";
import { ChatTemplateError } from "./errors/chat-template-error.js";
import { ChatTemplateLimitError } from "./errors/chat-template-limit-error.js";

/** Bounds on rendering one untrusted chat template. */
export interface ChatTemplateLimits {
  /** Longest template accepted, in characters (default 262,144; real templates are 1–30k). */
  readonly maxTemplateChars: number;
  /** Longest rendered prompt, in characters (default 4,194,304). */
  readonly maxOutputChars: number;
  /** Wall-clock time one render may take before its worker is terminated (default 2,000 ms). */
  readonly timeoutMs: number;
  /** Heap the sandbox worker may use, in MiB (default 64); a template that allocates more is stopped. */
  readonly maxHeapMb: number;
}

export const defaultChatTemplateLimits: ChatTemplateLimits = {
  maxTemplateChars: 262_144,
  maxOutputChars: 4_194_304,
  timeoutMs: 2_000,
  maxHeapMb: 64,
};

interface WorkerReply {
  ready?: boolean;
  id: number;
  ok: boolean;
  output?: string;
  failure?: "parse" | "render" | "output";
  message?: string;
  measured?: number;
}

interface Pending {
  id: number;
  templateName: string;
  resolve(output: string): void;
  reject(error: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * Renders GGUF chat templates (untrusted input from a model file) in a persistent worker thread:
 * @huggingface/jinja interprets the template (no host objects reachable, no code evaluation), the worker
 * has a capped heap, and a render that runs past the time limit gets the worker terminated; the next
 * render starts a fresh one. Renders run one at a time, so the time limit measures one template only.
 */
export class ChatTemplateSandbox {
  readonly limits: ChatTemplateLimits;
  #worker: Worker | null = null;
  #workerReady: Promise<Worker> | null = null;
  #pending: Pending | null = null;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  #closed = false;

  constructor(limits: Partial<ChatTemplateLimits> = {}) {
    this.limits = { ...defaultChatTemplateLimits, ...limits };
  }

  /**
   * The template rendered with `variables` (plain data: they are copied as JSON, so no function or
   * object with behaviour crosses into the sandbox). Rejects with ChatTemplateError (does not parse,
   * raised, failed) or ChatTemplateLimitError (too long, too much output, too slow, too much memory).
   */
  render(source: string, variables: Record<string, unknown>, templateName = "(unnamed)"): Promise<string> {
    if (this.#closed)
      return Promise.reject(new ChatTemplateError(templateName, "render", "the sandbox was closed"));
    if (typeof source !== "string") {
      return Promise.reject(
        new ChatTemplateError(templateName, "parse", `expected a string, got ${typeof source}`),
      );
    }
    if (source.length > this.limits.maxTemplateChars) {
      return Promise.reject(
        new ChatTemplateLimitError(
          templateName,
          "templateChars",
          this.limits.maxTemplateChars,
          source.length,
        ),
      );
    }
    const plainVariables = JSON.parse(JSON.stringify(variables)) as Record<string, unknown>;
    const run = this.#queue.then(() => this.#renderNow(source, plainVariables, templateName));
    // The queue only orders renders; one failure must not fail the ones behind it.
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Start the worker ahead of the first render (its start-up would otherwise count in the first TTFB). */
  async warmUp(): Promise<void> {
    await this.render("", {}, "(warm-up)");
  }

  /** Stop the worker; later renders reject. */
  async close(): Promise<void> {
    this.#closed = true;
    const worker = this.#worker;
    this.#worker = null;
    this.#workerReady = null;
    if (worker !== null) await worker.terminate();
  }

  async #renderNow(
    source: string,
    variables: Record<string, unknown>,
    templateName: string,
  ): Promise<string> {
    const worker = await this.#ensureWorker(templateName);
    return new Promise<string>((resolve, reject) => {
      const id = this.#nextId++;
      const timer = setTimeout(() => {
        this.#failWorker(new ChatTemplateLimitError(templateName, "timeMs", this.limits.timeoutMs, null));
      }, this.limits.timeoutMs);
      this.#pending = { id, templateName, resolve, reject, timer };
      worker.postMessage({ id, source, variables, maxOutputChars: this.limits.maxOutputChars });
    });
  }

  // The time limit starts once the worker has loaded the interpreter: start-up is not the template's doing.
  #ensureWorker(templateName: string): Promise<Worker> {
    if (this.#worker !== null && this.#workerReady !== null) return this.#workerReady;
    const jinjaPath = createRequire(import.meta.url).resolve("@huggingface/jinja");
    const worker = new Worker(chatTemplateWorkerSource, {
      eval: true,
      workerData: { jinjaPath },
      env: {},
      stdout: true,
      stderr: true,
      resourceLimits: {
        maxOldGenerationSizeMb: this.limits.maxHeapMb,
        maxYoungGenerationSizeMb: Math.max(4, Math.floor(this.limits.maxHeapMb / 4)),
        stackSizeMb: 4,
      },
    });
    // An idle sandbox must not keep the process alive; a pending render keeps it alive through its timer.
    worker.unref();
    // Events of a worker already thrown away (terminated on timeout) must not touch the next render.
    worker.on("message", (reply: WorkerReply) => {
      if (this.#worker === worker && reply.ready !== true) this.#onReply(reply);
    });
    worker.on("error", (error: Error & { code?: string }) => {
      if (this.#worker !== worker) return;
      const name = this.#pending?.templateName ?? "(unnamed)";
      this.#failWorker(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new ChatTemplateLimitError(name, "memory", this.limits.maxHeapMb, null)
          : new ChatTemplateError(name, "render", `the sandbox worker failed (${error.message})`),
      );
    });
    worker.on("exit", () => {
      if (this.#worker !== worker) return;
      const name = this.#pending?.templateName ?? "(unnamed)";
      this.#failWorker(new ChatTemplateError(name, "render", "the sandbox worker exited"));
    });
    this.#worker = worker;
    this.#workerReady = new Promise<Worker>((resolve, reject) => {
      const startTimer = setTimeout(() => {
        this.#failWorker(null);
        reject(new ChatTemplateError(templateName, "render", "the sandbox worker did not start within 30 s"));
      }, 30_000);
      const onStartFailure = () => {
        clearTimeout(startTimer);
        reject(new ChatTemplateError(templateName, "render", "the sandbox worker could not start"));
      };
      worker.once("exit", onStartFailure);
      worker.once("message", () => {
        clearTimeout(startTimer);
        worker.off("exit", onStartFailure);
        resolve(worker);
      });
    });
    return this.#workerReady;
  }

  #onReply(reply: WorkerReply): void {
    const pending = this.#pending;
    if (pending === null || pending.id !== reply.id) return;
    this.#pending = null;
    clearTimeout(pending.timer);
    if (reply.ok) {
      pending.resolve(reply.output ?? "");
    } else if (reply.failure === "output") {
      pending.reject(
        new ChatTemplateLimitError(
          pending.templateName,
          "outputChars",
          this.limits.maxOutputChars,
          reply.measured ?? null,
        ),
      );
    } else {
      pending.reject(
        new ChatTemplateError(pending.templateName, reply.failure ?? "render", reply.message ?? "unknown"),
      );
    }
  }

  /** Reject the render in flight and throw the worker away: its state can no longer be trusted. */
  #failWorker(error: unknown): void {
    const pending = this.#pending;
    this.#pending = null;
    this.#workerReady = null;
    if (pending !== null) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    const worker = this.#worker;
    this.#worker = null;
    if (worker !== null) void worker.terminate();
  }
}
