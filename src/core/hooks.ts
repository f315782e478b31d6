import type { Backend } from "./backend.js";
import type { Context } from "./context.js";
import type { ModelOptions } from "./model-options.js";
import type { ModelOutputThunk } from "./model-output-thunk.js";
import type { Requirement, ValidationResult } from "./requirement.js";
import type { SamplingResult } from "./sampling-result.js";
import type { SamplingStrategy } from "./sampling-strategy.js";
import type { Span } from "./span.js";

/**
 * Every hook, with the payload handlers receive and the changes they may return. Handlers returning
 * nothing only observe.
 */
export interface HookEvents {
  /** Before a backend generates; may replace the model options. */
  generationPreCall: {
    payload: { backend: Backend; action: Span; context: Context; modelOptions: ModelOptions };
    result: { modelOptions?: ModelOptions };
  };
  /** After a backend returned its (possibly still uncomputed) thunk. */
  generationPostCall: {
    payload: { backend: Backend; action: Span; context: Context; thunk: ModelOutputThunk<unknown> };
    result: undefined;
  };
  /** A generation failed to start or was cancelled. */
  generationError: {
    payload: {
      backend: Backend | null;
      action: Span | null;
      thunk: ModelOutputThunk<unknown> | null;
      error: unknown;
    };
    result: undefined;
  };
  /** A sampling loop is about to start; may change its budget. */
  samplingLoopStart: {
    payload: {
      samplingId: string;
      strategy: SamplingStrategy;
      action: Span;
      context: Context;
      loopBudget: number;
    };
    result: { loopBudget?: number };
  };
  /** One sample was generated and validated. */
  samplingIteration: {
    payload: {
      samplingId: string;
      iteration: number;
      thunk: ModelOutputThunk<unknown>;
      validations: Array<[Requirement, ValidationResult]>;
    };
    result: undefined;
  };
  /** A sampling loop ended, on any path: success, budget exhausted, or a thrown error. */
  samplingLoopEnd: {
    payload: {
      samplingId: string;
      strategy: SamplingStrategy;
      result: SamplingResult<unknown> | null;
      error: unknown;
    };
    result: undefined;
  };
}

export type HookName = keyof HookEvents;

export type HookHandler<Name extends HookName> = (
  payload: Readonly<HookEvents[Name]["payload"]>,
) => HookEvents[Name]["result"] | undefined | Promise<HookEvents[Name]["result"] | undefined>;

/** A small typed publish/subscribe registry. Handlers run in registration order; an error in one propagates. */
export class HookRegistry {
  #handlers = new Map<HookName, Array<HookHandler<HookName>>>();

  /** Subscribe; returns a function that unsubscribes. */
  on<Name extends HookName>(name: Name, handler: HookHandler<Name>): () => void {
    const handlers = this.#handlers.get(name) ?? [];
    handlers.push(handler as unknown as HookHandler<HookName>);
    this.#handlers.set(name, handlers);
    return () => {
      const index = handlers.indexOf(handler as unknown as HookHandler<HookName>);
      if (index >= 0) handlers.splice(index, 1);
    };
  }

  /** Number of handlers subscribed to a hook (lets callers skip building costly payloads). */
  count(name: HookName): number {
    return this.#handlers.get(name)?.length ?? 0;
  }

  /**
   * Run the handlers of `name` in order. Each handler sees the payload with the changes of the ones before
   * it applied; the merged changes are returned.
   */
  async emit<Name extends HookName>(
    name: Name,
    payload: HookEvents[Name]["payload"],
  ): Promise<Partial<NonNullable<HookEvents[Name]["result"]>>> {
    const changes: Record<string, unknown> = {};
    const current = { ...payload } as Record<string, unknown>;
    for (const handler of [...(this.#handlers.get(name) ?? [])]) {
      const result = await (handler as unknown as HookHandler<Name>)(current as HookEvents[Name]["payload"]);
      if (result !== undefined && result !== null && typeof result === "object") {
        Object.assign(changes, result);
        Object.assign(current, result);
      }
    }
    return changes as Partial<NonNullable<HookEvents[Name]["result"]>>;
  }
}

/** The registry backends and strategies use unless given their own. */
export const defaultHookRegistry = new HookRegistry();
