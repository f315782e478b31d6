import { setTimeout as sleep } from "node:timers/promises";
import type { Context } from "../../core/context.js";
import { GenerationCancelledError } from "../../core/errors/generation-cancelled-error.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Requirement } from "../../core/requirement.js";
import { type StreamFailure, validateWhileStreaming } from "../requirements/stream-validation.js";

export type PoolAttemptState = "live" | "completed" | "failed-streaming" | "loser" | "abandoned";

/** One sample of a pooled run. */
export interface PoolAttempt<T> {
  /** Start order, from 0. */
  readonly index: number;
  readonly thunk: ModelOutputThunk<T>;
  /** The context after the generation (action and output appended). */
  readonly context: Context;
  state: PoolAttemptState;
  /** The streaming check that cancelled it (or failed its trailing fragment). */
  streamFailure: StreamFailure | null;
  /** performance.now() at the start, the first delta and the last delta. */
  readonly startedAt: number;
  firstDeltaAt: number | null;
  lastDeltaAt: number | null;
}

export interface SamplePoolOptions<T> {
  /** Most samples live at once. */
  concurrency: number;
  /** Most samples started over the run. */
  attemptLimit: number;
  /** Starts one sample. */
  start(): Promise<{ thunk: ModelOutputThunk<T>; context: Context }>;
  /** Checked while each sample streams; the first fail cancels it and frees its place. */
  streamingRequirements: readonly Requirement[];
  /** The context samples are generated in (what streamValidate sees). */
  generationContext: Context;
  /** A sample ran to its end (or failed only on its trailing fragment): validate it; true stops the run. */
  onCompleted(attempt: PoolAttempt<T>): Promise<boolean>;
  /** A sample was cancelled by a streaming fail. */
  onFailedStreaming(attempt: PoolAttempt<T>): Promise<void>;
  /** Asked on every delta of a live sample: true cancels it as one that can no longer win. */
  isLoser?(attempt: PoolAttempt<T>): boolean;
  /** Asked before each start, with the number of live samples: false starts no more (the live ones run on). */
  wantsMore(live: number): boolean;
}

export interface SamplePoolOutcome<T> {
  readonly attempts: ReadonlyArray<PoolAttempt<T>>;
  readonly peakLive: number;
}

/**
 * Runs samples as a pool: up to `concurrency` live at once, each read by the streaming validator; a sample
 * cancelled by a streaming fail (or as a loser) frees its place for a fresh one while `attemptLimit` and
 * wantsMore() allow. When onCompleted() says stop, every live sample is cancelled ("abandoned"). A generation
 * error cancels the others and is thrown. On the local backend the samples are sequences of one llama.cpp
 * context, so a fresh sample reuses the prompt's KV cells from a live one instead of prefilling again.
 */
export async function runSamplePool<T>(options: SamplePoolOptions<T>): Promise<SamplePoolOutcome<T>> {
  const attempts: Array<PoolAttempt<T>> = [];
  const live = new Map<number, Promise<void>>();
  let stopped = false;
  let failure: { error: unknown } | null = null;
  let peakLive = 0;

  const stopAll = async (state: PoolAttemptState, reason: unknown) => {
    stopped = true;
    await Promise.all(
      attempts
        .filter((attempt) => attempt.state === "live")
        .map((attempt) => {
          attempt.state = state;
          return attempt.thunk.cancelGeneration(reason);
        }),
    );
  };

  const follow = async (attempt: PoolAttempt<T>): Promise<void> => {
    try {
      const streamFailure = await validateWhileStreaming(
        attempt.thunk as ModelOutputThunk<unknown>,
        options.streamingRequirements,
        options.generationContext,
        {
          onDelta: () => {
            const now = performance.now();
            attempt.firstDeltaAt ??= now;
            attempt.lastDeltaAt = now;
            if (attempt.state === "live" && options.isLoser?.(attempt)) {
              attempt.state = "loser";
              void attempt.thunk.cancelGeneration(new GenerationCancelledError());
            }
          },
        },
      );
      attempt.streamFailure = streamFailure;
      if (streamFailure !== null && !streamFailure.atEnd) {
        attempt.state = "failed-streaming";
        await options.onFailedStreaming(attempt);
      } else if (attempt.state === "live" && !attempt.thunk.cancelled) {
        attempt.state = "completed";
        if ((await options.onCompleted(attempt)) && !stopped) {
          await stopAll("abandoned", new GenerationCancelledError());
        }
      }
      // A cancelled sample's place is free only once its backend let go of it (its KV cells).
      if (attempt.thunk.cancelled) await released(attempt.thunk as ModelOutputThunk<unknown>);
    } catch (error) {
      failure ??= { error };
    }
  };

  while (true) {
    while (
      failure === null &&
      !stopped &&
      live.size < options.concurrency &&
      attempts.length < options.attemptLimit &&
      options.wantsMore(live.size)
    ) {
      const startedAt = performance.now();
      let started: { thunk: ModelOutputThunk<T>; context: Context };
      try {
        started = await options.start();
      } catch (error) {
        failure = { error };
        break;
      }
      const attempt: PoolAttempt<T> = {
        index: attempts.length,
        thunk: started.thunk,
        context: started.context,
        state: "live",
        streamFailure: null,
        startedAt,
        firstDeltaAt: null,
        lastDeltaAt: null,
      };
      attempts.push(attempt);
      live.set(
        attempt.index,
        follow(attempt).finally(() => live.delete(attempt.index)),
      );
      peakLive = Math.max(peakLive, live.size);
    }
    if (failure !== null) {
      await stopAll("abandoned", new GenerationCancelledError());
      await Promise.all(live.values());
      throw (failure as { error: unknown }).error;
    }
    if (live.size === 0) break;
    await Promise.race(live.values());
  }
  return { attempts, peakLive };
}

/**
 * Waits until a cancelled generation's backend has let go of it. The llama.cpp backend records the native
 * result (nativeFinishReason in its GenerateLog) once the sequence's KV cells are removed, within one decode
 * step of the cancel; other backends hold nothing to wait for. The addon has no release event yet, so this
 * polls every millisecond, for at most 10 seconds.
 */
async function released(thunk: ModelOutputThunk<unknown>): Promise<void> {
  if (thunk.generation.provider !== "llama.cpp" || thunk.generateLog === null) return;
  for (let waited = 0; waited < 10_000; waited += 1) {
    const output = thunk.generateLog.modelOutput as { nativeFinishReason?: unknown } | null;
    if (output !== null && output.nativeFinishReason !== null && output.nativeFinishReason !== undefined)
      return;
    await sleep(1);
  }
}

/** Tokens a sample generated: the native count when the backend reports one, else its usage. */
export function generatedTokens(thunk: ModelOutputThunk<unknown>): number {
  const output = thunk.generateLog?.modelOutput as { generatedTokens?: unknown } | null | undefined;
  if (typeof output?.generatedTokens === "number") return output.generatedTokens;
  return thunk.generation.usage?.completionTokens ?? 0;
}
