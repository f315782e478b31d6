import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import type { ModelOptions } from "../../core/model-options.js";
import type { SamplingStrategy } from "../../core/sampling-strategy.js";
import { ChatContext } from "../contexts/chat-context.js";
import { UnknownBackendError } from "../errors/unknown-backend-error.js";
import { Session } from "./session.js";

/** Builds a backend for a model; registered under a name so startSession({ backend: "name" }) finds it. */
export type BackendFactory = (
  model: string | undefined,
  backendOptions: Readonly<Record<string, unknown>>,
) => Backend | Promise<Backend>;

// The built-in names load their backend module only when used: a session on one never loads the other.
const factories = new Map<string, BackendFactory>([
  [
    "llamacpp",
    async (model, backendOptions) => {
      const { LlamaCppBackend } = await import("../../backends/llamacpp/llama-cpp-backend.js");
      return LlamaCppBackend.create({ ...backendOptions, ...(model === undefined ? {} : { model }) });
    },
  ],
  [
    "openai",
    async (model, backendOptions) => {
      const { OpenAIBackend } = await import("../../backends/openai/openai-backend.js");
      return new OpenAIBackend({ ...backendOptions, ...(model === undefined ? {} : { model }) });
    },
  ],
]);

/** Make `startSession({ backend: name, model })` build backends with `factory`. A later registration replaces one. */
export function registerBackendFactory(name: string, factory: BackendFactory): void {
  factories.set(name, factory);
}

export interface StartSessionOptions {
  /**
   * A backend, or a name: "llamacpp" (a local GGUF: `model` is a path or preset, default the tiny test model),
   * "openai" (an OpenAI-compatible server from OPENAI_BASE_URL / OPENAI_API_KEY, `model` its model name), or
   * one given to registerBackendFactory(). A session built from a name owns the backend and closes it.
   */
  backend: Backend | string;
  /** The model a named backend loads (a path or an id); ignored with a Backend instance. */
  model?: string;
  /** Options for a named backend's constructor (say `{ threads: 1 }` for "llamacpp"); checked by the backend. */
  backendOptions?: Readonly<Record<string, unknown>>;
  /** Starting context (default an empty ChatContext). */
  context?: Context;
  modelOptions?: ModelOptions;
  strategy?: SamplingStrategy | null;
  /** Let calls change the context's class (default false: a change throws ContextTypeMismatchError). */
  allowContextTypeChange?: boolean;
}

/**
 * Start a session. Close it when done (Node 20 has no `await using`):
 * `const session = await startSession({ backend }); try { … } finally { await session[Symbol.asyncDispose](); }`.
 */
export async function startSession(options: StartSessionOptions): Promise<Session> {
  let backend: Backend;
  let ownsBackend = false;
  if (typeof options.backend === "string") {
    const factory = factories.get(options.backend);
    if (factory === undefined) throw new UnknownBackendError(options.backend, [...factories.keys()]);
    backend = await factory(options.model, options.backendOptions ?? {});
    ownsBackend = true;
  } else {
    backend = options.backend;
  }
  return new Session({
    backend,
    context: options.context ?? new ChatContext(),
    ...(options.modelOptions === undefined ? {} : { modelOptions: options.modelOptions }),
    ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
    ...(options.allowContextTypeChange === undefined
      ? {}
      : { allowContextTypeChange: options.allowContextTypeChange }),
    ownsBackend,
  });
}
