import type { Attributes } from "@opentelemetry/api";
import type { z } from "zod";
import type {
  Backend,
  BackendCapabilities,
  GenerateAction,
  GenerateOptions,
  GenerateResult,
} from "./backend.js";
import type { Context } from "./context.js";
import { ThunkProducerError } from "./errors/thunk-producer-error.js";
import { defaultHookRegistry, type HookRegistry } from "./hooks.js";
import {
  type ModelOptions,
  mergeModelOptions,
  modelOptionsSchema,
  validateModelOptions,
} from "./model-options.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";
import { BackendCallObservation, type GenAiOperation } from "./telemetry/backend-call-observation.js";

export interface BaseBackendOptions {
  /** Options applied under every call's own (call > session > these defaults). */
  defaultModelOptions?: ModelOptions;
  hooks?: HookRegistry;
}

/** GenerateOptions after validation: the merged, checked model options are always present. */
export type ResolvedGenerateOptions<T> = Omit<GenerateOptions<T>, "modelOptions"> & {
  modelOptions: ModelOptions;
};

/**
 * The template every backend follows: the public generate methods check the signal, merge and validate
 * model options, run the hooks and attach bookkeeping; subclasses implement doGenerateFromContext and
 * doGenerateFromRaw only.
 */
export abstract class BaseBackend implements Backend {
  abstract readonly modelId: string;
  abstract readonly capabilities: BackendCapabilities;
  readonly hooks: HookRegistry;
  readonly defaultModelOptions: ModelOptions;

  constructor(options: BaseBackendOptions = {}) {
    this.hooks = options.hooks ?? defaultHookRegistry;
    this.defaultModelOptions = options.defaultModelOptions ?? {};
  }

  /** The strict schema options are validated with; backends with extra options return extendModelOptionsSchema(...). */
  protected get modelOptionsSchema(): z.ZodObject {
    return modelOptionsSchema;
  }

  /** Merge the defaults under `callOptions` and validate the result (unknown names and bad values throw). */
  resolveModelOptions(callOptions?: ModelOptions): ModelOptions {
    return validateModelOptions(
      mergeModelOptions(this.defaultModelOptions, callOptions),
      this.modelOptionsSchema,
    ) as ModelOptions;
  }

  async generateFromContext<T = string>(
    action: GenerateAction<T>,
    context: Context,
    options: GenerateOptions<T> = {},
  ): Promise<GenerateResult<T>> {
    options.signal?.throwIfAborted();
    let modelOptions = this.resolveModelOptions(options.modelOptions);
    let observation: BackendCallObservation | null = null;
    let startedAt: number | null = null;
    let started: ModelOutputThunk<T> | null = null;
    try {
      // Without handlers, no emit: its awaits would be hops on every call's way to its first token.
      const changes =
        this.hooks.count("generationPreCall") === 0
          ? {}
          : await this.hooks.emit("generationPreCall", { backend: this, action, context, modelOptions });
      if (changes.modelOptions !== undefined) modelOptions = this.resolveModelOptions(changes.modelOptions);
      startedAt = performance.now();
      const result = await this.doGenerateFromContext(action, context, { ...options, modelOptions });
      started = result.thunk;
      // Observed once the generation has started: the span's bookkeeping then runs while the backend
      // decodes, not before it starts. The span still starts with the call (startedAt).
      observation = this.#observe("chat", action, modelOptions, options, startedAt);
      this.#attach(result.thunk, action, context, modelOptions);
      if (this.hooks.count("generationPostCall") > 0) {
        await this.hooks.emit("generationPostCall", { backend: this, action, context, thunk: result.thunk });
      }
      // Followed once the call has succeeded: a thunk that settles before a post-call hook throws would
      // otherwise end its span as a success of a call that failed.
      observation.follow(result.thunk);
      return result;
    } catch (error) {
      // The span records the call's own failure before the generation is stopped (which would end it as
      // cancelled, or as a success if the generation had already finished).
      if (startedAt !== null) {
        (observation ?? this.#observeFailure("chat", action, modelOptions, options, startedAt))?.fail(error);
      }
      if (started !== null) stopUnclaimed(started);
      await this.hooks.emit("generationError", { backend: this, action, thunk: null, error });
      throw error;
    }
  }

  async generateFromRaw<T = string>(
    actions: ReadonlyArray<GenerateAction<T>>,
    context: Context,
    options: GenerateOptions<T> = {},
  ): Promise<Array<ModelOutputThunk<T>>> {
    options.signal?.throwIfAborted();
    const startedAt = performance.now();
    const modelOptions = this.resolveModelOptions(options.modelOptions);
    // One span per generation of the batch, so each carries its own usage and finish reason. Observed once
    // the generations have started (or failed to), so this bookkeeping runs while the backend decodes; the
    // spans still start with the call (startedAt).
    let observations: BackendCallObservation[] | null = null;
    let started: Array<ModelOutputThunk<T>> = [];
    try {
      const thunks = await this.doGenerateFromRaw(actions, context, { ...options, modelOptions });
      started = thunks;
      // One at a time, so the spans made before one that fails to start are the ones the failure ends.
      observations = [];
      for (const action of actions) {
        observations.push(this.#observe(this.rawOperation(), action, modelOptions, options, startedAt));
      }
      thunks.forEach((thunk, index) => {
        this.#attach(thunk, actions[index]!, context, modelOptions);
        observations![index]?.follow(thunk);
      });
      return thunks;
    } catch (error) {
      // Each action gets its failure span: those made before one that could not be, then new ones.
      const failed = observations ?? [];
      for (const action of actions.slice(failed.length)) {
        const observation = this.#observeFailure(
          this.rawOperation(),
          action,
          modelOptions,
          options,
          startedAt,
        );
        if (observation !== null) failed.push(observation);
      }
      for (const observation of failed) observation.fail(error);
      // Generations started by a call that then failed (telemetry) reach nobody: stop them (see above).
      for (const thunk of started) stopUnclaimed(thunk);
      await this.hooks.emit("generationError", { backend: this, action: null, thunk: null, error });
      throw error;
    }
  }

  /**
   * The GenAI operation a generateFromRaw call performs, for its spans: text_completion (a raw prompt
   * completed), unless the backend sends it as a chat (the OpenAI backend calls /chat/completions).
   */
  protected rawOperation(): GenAiOperation {
    return "text_completion";
  }

  /** Attributes this backend adds to its generation spans and metrics (say server.address); none by default. */
  protected telemetryAttributes(): Attributes {
    return {};
  }

  /** The span of a call that failed, or none when telemetry itself fails: the call's own error is the one to report. */
  #observeFailure<T>(
    operation: GenAiOperation,
    action: GenerateAction<T>,
    modelOptions: ModelOptions,
    options: GenerateOptions<T>,
    startedAt: number,
  ): BackendCallObservation | null {
    try {
      return this.#observe(operation, action, modelOptions, options, startedAt);
    } catch {
      return null;
    }
  }

  #observe<T>(
    operation: GenAiOperation,
    action: GenerateAction<T>,
    modelOptions: ModelOptions,
    options: GenerateOptions<T>,
    startedAt: number,
  ): BackendCallObservation {
    return new BackendCallObservation({
      startedAt,
      operation,
      requestModel: this.modelId,
      actionType: (action as object).constructor?.name ?? "unknown",
      modelOptions,
      structured: options.format !== undefined,
      attributes: this.telemetryAttributes(),
    });
  }

  protected abstract doGenerateFromContext<T>(
    action: GenerateAction<T>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<GenerateResult<T>>;

  protected abstract doGenerateFromRaw<T>(
    actions: ReadonlyArray<GenerateAction<T>>,
    context: Context,
    options: ResolvedGenerateOptions<T>,
  ): Promise<Array<ModelOutputThunk<T>>>;

  #attach(
    thunk: ModelOutputThunk<unknown>,
    action: GenerateAction<unknown>,
    context: Context,
    modelOptions: ModelOptions,
  ) {
    // A thunk nobody will ever feed would make its readers wait forever; catch that here, at the source.
    if (!thunk.isComputed() && thunk.generateType === "none") {
      throw new ThunkProducerError(
        `${this.constructor.name} returned an uncomputed thunk without starting its producer`,
      );
    }
    thunk.action ??= action;
    thunk.context ??= context;
    thunk.modelOptions ??= modelOptions;
    thunk.hooks ??= this.hooks;
  }
}

/**
 * Stops a generation whose call failed after it started (a telemetry or hook failure): nobody holds its
 * thunk, so without this it would keep its sequence until garbage collection. Quietly: the call's own
 * failure is what the caller and the generationError hook hear, not a cancellation of a thunk they never
 * saw (and a throwing hook there would be an unhandled rejection).
 */
function stopUnclaimed(thunk: ModelOutputThunk<unknown>): void {
  thunk.hooks = null;
  thunk.cancelGeneration().catch(() => undefined);
}
