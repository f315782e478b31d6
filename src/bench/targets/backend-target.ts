// A row for any tessera Backend in this process (the llama.cpp backend, or an OpenAIBackend pointed at
// a server): one CBlock prompt in a fresh SimpleContext per run, deltas read with for-await, so the
// figures include everything a tessera user pays (formatting, the thunk, the bounded queue).
import type { Backend } from "../../core/backend.js";
import { CBlock } from "../../core/cblock.js";
import type { Context } from "../../core/context.js";
import type { ModelOptions } from "../../core/model-options.js";
import { Message } from "../../messages/components/message.js";
import { ChatContext } from "../../stdlib/contexts/chat-context.js";
import { SimpleContext } from "../../stdlib/contexts/simple-context.js";
import type { BenchTarget, StreamObserver, StreamOutcome, StreamRequest } from "../bench-target.js";
import { BenchTargetUnavailableError } from "../errors/bench-target-unavailable-error.js";
import { inProcessStages } from "../first-token-stages.js";

export interface BackendTargetOptions {
  name: string;
  transport?: "in-process" | "http";
  /** Whether the backend runs here in V8 (BenchTarget.jitCompiled); false for one that calls a provider. */
  jitCompiled?: boolean;
  /** Creates the backend (loads the model); called once in prepare(). */
  open(signal: AbortSignal): Promise<Backend>;
  /** Releases it; called once in close(). */
  dispose?(backend: Backend): Promise<void>;
  countTokens?(backend: Backend, text: string): Promise<number>;
  /** Options added to every generation (for example logits capture). */
  modelOptions?: ModelOptions;
  /**
   * Measure the second turn of a chat: each run first answers the prompt as a user message (untimed), then
   * times a short follow-up in the same ChatContext, whose history's KV cells the backend can reuse.
   */
  secondTurn?: boolean;
}

/** The follow-up of a second-turn run: short and fixed, so its first token is all about the history. */
export const secondTurnMessage = "Thank you. Now say it again in other words.";

export class BackendTarget implements BenchTarget {
  readonly name: string;
  readonly transport: "in-process" | "http";
  readonly jitCompiled: boolean;
  readonly #options: BackendTargetOptions;
  #backend: Backend | undefined;
  #history: Context | undefined;

  constructor(options: BackendTargetOptions) {
    this.name = options.name;
    this.transport = options.transport ?? "in-process";
    this.jitCompiled = options.jitCompiled === true;
    this.#options = options;
  }

  async prepare(signal: AbortSignal): Promise<void> {
    try {
      this.#backend = await this.#options.open(signal);
    } catch (error) {
      throw new BenchTargetUnavailableError(
        this.name,
        `could not open the backend: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
        { cause: error },
      );
    }
  }

  get backend(): Backend | undefined {
    return this.#backend;
  }

  async countTokens(text: string): Promise<number> {
    if (this.#backend === undefined || this.#options.countTokens === undefined) {
      throw new Error(`${this.name} cannot count tokens`);
    }
    return this.#options.countTokens(this.#backend, text);
  }

  async prepareRun(request: StreamRequest): Promise<void> {
    if (this.#options.secondTurn !== true) return;
    const first = await this.#backend!.generateFromContext(
      new Message("user", request.prompt),
      new ChatContext(),
      {
        modelOptions: { temperature: 0, maxNewTokens: request.maxTokens, ...this.#options.modelOptions },
        signal: request.signal,
      },
    );
    await first.thunk.avalue();
    this.#history = first.context;
  }

  async stream(request: StreamRequest, observer: StreamObserver): Promise<StreamOutcome> {
    const backend = this.#backend!;
    const history = this.#history;
    this.#history = undefined;
    const modelOptions = { temperature: 0, maxNewTokens: request.maxTokens, ...this.#options.modelOptions };
    const calledAt = performance.now();
    const { thunk } =
      history === undefined
        ? await backend.generateFromContext(new CBlock(request.prompt), new SimpleContext(), {
            modelOptions,
            signal: request.signal,
          })
        : await backend.generateFromContext(new Message("user", secondTurnMessage), history, {
            modelOptions,
            signal: request.signal,
          });
    let first = true;
    let readAt: number | null = null;
    for await (const delta of thunk) {
      if (first) {
        observer.firstByte();
        first = false;
      }
      if (readAt === null && delta !== "") readAt = performance.now();
      observer.content(delta);
    }
    await thunk.avalue();
    const { timings, ttfbMs } = thunk.generation;
    // The backend's stages run from its own request mark to the thunk's first part. The call before that
    // mark (building the action, the backend's entry) counts as setup, and the hop from the thunk to this
    // reader as first delivery, so the stages cover the whole first token this benchmark times.
    const startedAt = timings?.requestStartedAt ?? null;
    const before = startedAt === null ? null : startedAt - calledAt;
    const after =
      startedAt === null || ttfbMs === null || readAt === null ? null : readAt - (startedAt + ttfbMs);
    const plus = (value: number | null, extra: number | null) =>
      value === null || extra === null ? null : value + extra;
    const stages =
      timings === null || ttfbMs === null
        ? null
        : {
            setup: plus(timings.setupMs, before),
            template: timings.templateMs,
            tokenize: timings.tokenizeMs,
            queueWait: timings.queueWaitMs,
            prefill: timings.prefillMs,
            firstDelivery: plus(timings.firstDeliveryMs, after),
          };
    const complete =
      stages !== null && Object.values(stages).every((value) => typeof value === "number")
        ? inProcessStages(stages as Parameters<typeof inProcessStages>[0])
        : null;
    return {
      completionTokens: thunk.generation.usage?.completionTokens ?? null,
      ...(complete !== null && ttfbMs !== null && { firstToken: { stages: complete } }),
    };
  }

  async close(): Promise<void> {
    if (this.#backend !== undefined) await this.#options.dispose?.(this.#backend);
    this.#backend = undefined;
  }
}
