// What every schedule-fuzz case gets from its child process: the shared model (loaded once per
// child, both through the library and the raw addon), a pool of prompt tokens, the watchdog, and a
// place to note errors that are not the typed errors a caller may expect.

import type { NativeModel } from "../backends/llamacpp/addon-types.js";
import type { LlamaModel } from "../backends/llamacpp/llama-model.js";
import { TesseraError } from "../core/errors/tessera-error.js";
import type { RaceMoment } from "./schedule-plan.js";
import type { ScheduleWatchdog } from "./schedule-watchdog.js";

export interface ScheduleResources {
  readonly modelPath: string;
  /** Shared by the cases that do not dispose the model. */
  readonly model: LlamaModel;
  readonly rawModel: NativeModel;
  /** A few hundred tokens of ordinary text; prompts are prefixes of it. */
  readonly promptPool: Int32Array;
  /** The compiled child script (re-run for process-exit cases) and the worker script. */
  readonly childScript: string;
  readonly workerScript: string;
}

export interface CaseTools {
  readonly resources: ScheduleResources;
  readonly watchdog: ScheduleWatchdog;
  /** Records an error a caller could not have expected (not typed, no error code). */
  readonly unexpected: (where: string, error: unknown) => void;
  /** Records a crash the case saw in a process or worker of its own (its own process survived). */
  readonly crashed: (detail: string) => void;
}

/**
 * Errors a caller is promised: tessera's typed errors from the library, and coded errors (`ERR_*`)
 * from the raw addon. Anything else is a finding.
 */
export function isExpectedError(error: unknown): boolean {
  if (TesseraError.isInstance(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_");
}

export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 300);
}

/** Settles a promise into "its error was expected" / noted as unexpected; never rejects. */
export async function settleExpected<T>(
  tools: CaseTools,
  where: string,
  promise: Promise<T>,
): Promise<T | undefined> {
  try {
    return await promise;
  } catch (error) {
    if (!isExpectedError(error)) tools.unexpected(where, error);
    return undefined;
  }
}

/** Runs `action` at a moment relative to now: at once, in a microtask, on the next turn, or later. */
export function atMoment(moment: RaceMoment, action: () => void): void {
  switch (moment.kind) {
    case "none":
      return;
    case "sync":
      action();
      return;
    case "microtask":
      queueMicrotask(action);
      return;
    case "immediate":
      setImmediate(action);
      return;
    case "timer":
      setTimeout(action, moment.delayMs);
      return;
  }
}
