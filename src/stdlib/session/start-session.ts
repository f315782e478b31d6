import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import type { ModelOptions } from "../../core/model-options.js";
import type { SamplingStrategy } from "../../core/sampling-strategy.js";
import { ChatContext } from "../contexts/chat-context.js";
import { UnknownBackendError } from "../errors/unknown-backend-error.js";
import { Session } from "./session.js";

/** Builds a backend for a model; registered under a name so startSession({ backend: "name" }) finds it. */
export type BackendFactory = (model: string | undefined) => Backend | Promise<Backend>;

const factories = new Map<string, BackendFactory>();

/** Make `startSession({ backend: name, model })` build backends with `factory`. A later registration replaces one. */
export function registerBackendFactory(name: string, factory: BackendFactory): void {
  factories.set(name, factory);
}

export interface StartSessionOptions {
  /** A backend, or the name of a registered backend factory (the session then owns and closes it). */
  backend: Backend | string;
  /** The model a named backend loads (a path or an id); ignored with a Backend instance. */
  model?: string;
  /** Starting context (default an empty ChatContext). */
  context?: Context;
  modelOptions?: ModelOptions;
  strategy?: SamplingStrategy | null;
}

/** Start a session: `await using session = await startSession({ backend })`. */
export async function startSession(options: StartSessionOptions): Promise<Session> {
  let backend: Backend;
  let ownsBackend = false;
  if (typeof options.backend === "string") {
    const factory = factories.get(options.backend);
    if (factory === undefined) throw new UnknownBackendError(options.backend, [...factories.keys()]);
    backend = await factory(options.model);
    ownsBackend = true;
  } else {
    backend = options.backend;
  }
  return new Session({
    backend,
    context: options.context ?? new ChatContext(),
    ...(options.modelOptions === undefined ? {} : { modelOptions: options.modelOptions }),
    ...(options.strategy === undefined ? {} : { strategy: options.strategy }),
    ownsBackend,
  });
}
