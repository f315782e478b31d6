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
    try {
      const changes = await this.hooks.emit("generationPreCall", {
        backend: this,
        action,
        context,
        modelOptions,
      });
      if (changes.modelOptions !== undefined) modelOptions = this.resolveModelOptions(changes.modelOptions);
      const result = await this.doGenerateFromContext(action, context, { ...options, modelOptions });
      this.#attach(result.thunk, action, context, modelOptions);
      await this.hooks.emit("generationPostCall", { backend: this, action, context, thunk: result.thunk });
      return result;
    } catch (error) {
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
    const modelOptions = this.resolveModelOptions(options.modelOptions);
    try {
      const thunks = await this.doGenerateFromRaw(actions, context, { ...options, modelOptions });
      thunks.forEach((thunk, index) => {
        this.#attach(thunk, actions[index]!, context, modelOptions);
      });
      return thunks;
    } catch (error) {
      await this.hooks.emit("generationError", { backend: this, action: null, thunk: null, error });
      throw error;
    }
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
