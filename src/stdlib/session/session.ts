import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import { type ModelOptions, mergeModelOptions } from "../../core/model-options.js";
import type { Requirement, ValidationResult } from "../../core/requirement.js";
import type { SamplingStrategy } from "../../core/sampling-strategy.js";
import type { Subject } from "../components/subject-text.js";
import { SessionDisposedError } from "../errors/session-disposed-error.js";
import { type ActAction, type ActOptions, type ActResult, act } from "../functional/act.js";
import { type ChatOptions, type ChatResult, chat } from "../functional/chat.js";
import { type InstructOptions, instruct } from "../functional/instruct.js";
import { query, transform } from "../functional/query.js";
import { type ValidateCallOptions, validate } from "../functional/validate.js";

export interface SessionOptions {
  backend: Backend;
  context: Context;
  /** Applied under every call's own model options. */
  modelOptions?: ModelOptions;
  /** Used by every call that does not pass a strategy of its own. */
  strategy?: SamplingStrategy | null;
  /** Close the backend when the session is disposed (true when startSession built it from a name). */
  ownsBackend?: boolean;
  /** Let calls change the context's class (default false: a change throws ContextTypeMismatchError). */
  allowContextTypeChange?: boolean;
}

/**
 * A backend and the context of one conversation, updated by every call. Calls made at the same time both
 * start from the same context and the last to finish wins: await one before the next.
 */
export class Session implements AsyncDisposable {
  readonly backend: Backend;
  context: Context;
  readonly modelOptions: ModelOptions;
  readonly strategy: SamplingStrategy | null;
  /** Whether calls may return a context of another class; a call's own option overrides it. */
  readonly allowContextTypeChange: boolean;
  readonly #ownsBackend: boolean;
  #disposed = false;

  constructor(options: SessionOptions) {
    this.backend = options.backend;
    this.context = options.context;
    this.modelOptions = options.modelOptions ?? {};
    this.strategy = options.strategy ?? null;
    this.allowContextTypeChange = options.allowContextTypeChange ?? false;
    this.#ownsBackend = options.ownsBackend ?? false;
  }

  async act<T = string>(action: ActAction<T>, options: ActOptions<T> = {}): Promise<ActResult<T>> {
    this.#checkOpen("act");
    const result = await act<T>(action, this.context, this.backend, this.#withDefaults(options));
    this.context = result.context;
    return result;
  }

  async instruct<T = string>(description: string, options: InstructOptions<T> = {}): Promise<ActResult<T>> {
    this.#checkOpen("instruct");
    const result = await instruct<T>(description, this.context, this.backend, this.#withDefaults(options));
    this.context = result.context;
    return result;
  }

  async chat(content: string, options: ChatOptions = {}): Promise<ChatResult> {
    this.#checkOpen("chat");
    const result = await chat(content, this.context, this.backend, this.#withDefaults(options));
    this.context = result.context;
    return result;
  }

  async query<T = string>(
    subject: Subject,
    question: string,
    options: ActOptions<T> = {},
  ): Promise<ActResult<T>> {
    this.#checkOpen("query");
    const result = await query<T>(subject, question, this.context, this.backend, this.#withDefaults(options));
    this.context = result.context;
    return result;
  }

  async transform<T = string>(
    subject: Subject,
    transformation: string,
    options: ActOptions<T> = {},
  ): Promise<ActResult<T>> {
    this.#checkOpen("transform");
    const result = await transform<T>(
      subject,
      transformation,
      this.context,
      this.backend,
      this.#withDefaults(options),
    );
    this.context = result.context;
    return result;
  }

  /** Validate the last output (or `options.output`); the context does not change. */
  async validate(
    requirements: ReadonlyArray<string | Requirement>,
    options: ValidateCallOptions = {},
  ): Promise<ValidationResult[]> {
    this.#checkOpen("validate");
    return validate(requirements, this.context, this.backend, {
      ...options,
      modelOptions: mergeModelOptions(this.modelOptions, options.modelOptions),
    });
  }

  /** A session on the same backend starting from this one's context; the two then diverge. Never owns the backend. */
  clone(): Session {
    this.#checkOpen("clone");
    return new Session({
      backend: this.backend,
      context: this.context,
      modelOptions: this.modelOptions,
      strategy: this.strategy,
      allowContextTypeChange: this.allowContextTypeChange,
    });
  }

  /** Forget the conversation: an empty context of the same kind. */
  reset(): void {
    this.#checkOpen("reset");
    this.context = this.context.newInstance();
  }

  /** Close the backend when this session owns it; further calls throw SessionDisposedError. Idempotent. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    if (!this.#ownsBackend) return;
    const closable = this.backend as Partial<AsyncDisposable> & { dispose?: () => unknown };
    if (typeof closable[Symbol.asyncDispose] === "function") await closable[Symbol.asyncDispose]!();
    else if (typeof closable.dispose === "function") await closable.dispose();
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  #withDefaults<
    Options extends {
      modelOptions?: ModelOptions;
      strategy?: SamplingStrategy | null;
      allowContextTypeChange?: boolean;
    },
  >(options: Options): Options {
    return {
      allowContextTypeChange: this.allowContextTypeChange,
      ...options,
      modelOptions: mergeModelOptions(this.modelOptions, options.modelOptions),
      ...(options.strategy === undefined && this.strategy !== null ? { strategy: this.strategy } : {}),
    };
  }

  #checkOpen(methodName: string): void {
    if (this.#disposed) throw new SessionDisposedError(methodName);
  }
}
