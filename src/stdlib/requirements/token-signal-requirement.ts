import type { Context } from "../../core/context.js";
import type { LogitsStep, LogitsTrace } from "../../core/logits-trace.js";
import type { LogitsRequest } from "../../core/model-options.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { PartialValidationResult, ValidationResult } from "../../core/requirement.js";
import { StandardRequirement } from "./standard-requirement.js";

/** One generated token as the logits traces saw it. */
export interface TokenSignalEvent {
  /** Position in the output, from 0. */
  readonly index: number;
  /** The step of the processed trace (what the sampler drew from), when it was captured. */
  readonly processed: LogitsStep | null;
  /** The step of the raw trace (the LM head's output), when it was captured. */
  readonly raw: LogitsStep | null;
}

/** Looks at one token (and the ones before it); returns why the sample fails, or null while it is fine. */
export type TokenCheck = (event: TokenSignalEvent, previous: readonly TokenSignalEvent[]) => string | null;

export interface TokenSignalRequirementOptions {
  /** The check, run on each token in order; the first reason it returns fails the sample. */
  check: TokenCheck;
  /** Which traces the check reads: the processed one ("logits"), the raw one, or both. */
  traces: ReadonlyArray<"processed" | "raw">;
  /** Alternatives captured per token (default 1: the chosen token's logprob; entropy wants more or "full"). */
  topK?: Exclude<LogitsRequest, false>;
  checkOnly?: boolean;
}

interface Cursor {
  readonly events: TokenSignalEvent[];
}

/**
 * A requirement on what the logits say while the sample streams: the check runs on each new token as soon
 * as its step is in the thunk's trace, and the first failing token cancels the sample. The final check runs
 * the same check over the whole trace, so a streaming fail is always a final fail. It asks the backend for
 * the traces it reads (streamModelOptions, merged under the caller's options by the strategies). A sample
 * without the traces it needs fails its final check with a reason that says which option to set.
 */
export function tokenSignalRequirement(
  description: string,
  options: TokenSignalRequirementOptions,
): StandardRequirement {
  const topK = options.topK ?? 1;
  const needsProcessed = options.traces.includes("processed");
  const needsRaw = options.traces.includes("raw");
  const cursors = new WeakMap<ModelOutputThunk<unknown>, Cursor>();
  return new StandardRequirement(description, {
    checkOnly: options.checkOnly ?? false,
    streamModelOptions: {
      ...(needsProcessed ? { logits: topK } : {}),
      ...(needsRaw ? { rawLogits: topK } : {}),
    },
    validate: (context: Context) => {
      const output = context.lastOutput();
      if (output === null)
        return new ValidationResult(false, { reason: "The context has no output.", context });
      const missing = missingTraces(output, needsProcessed, needsRaw);
      if (missing !== null) return new ValidationResult(false, { reason: missing, context });
      const reason = runChecks(options.check, { events: [] }, output);
      return new ValidationResult(reason === null, { reason, context });
    },
    streamValidate: ({ thunk }) => {
      if (missingTraces(thunk, needsProcessed, needsRaw) !== null)
        return new PartialValidationResult("unknown");
      let cursor = cursors.get(thunk);
      if (cursor === undefined) {
        cursor = { events: [] };
        cursors.set(thunk, cursor);
      }
      const reason = runChecks(options.check, cursor, thunk);
      return new PartialValidationResult(reason === null ? "unknown" : "fail", { reason });
    },
  });

  function runChecks(check: TokenCheck, cursor: Cursor, thunk: ModelOutputThunk<unknown>): string | null {
    const processed = needsProcessed ? thunk.generation.logits : null;
    const raw = needsRaw ? thunk.generation.rawLogits : null;
    // The producer fills the traces ahead of the text; with both traces only tokens present in both count.
    const available = Math.min(stepsOf(processed, needsProcessed), stepsOf(raw, needsRaw));
    while (cursor.events.length < available) {
      const index = cursor.events.length;
      const event: TokenSignalEvent = {
        index,
        processed: processed?.steps[index] ?? null,
        raw: raw?.steps[index] ?? null,
      };
      const reason = check(event, cursor.events);
      cursor.events.push(event);
      if (reason !== null) return `token ${index}: ${reason}`;
    }
    return null;
  }
}

function stepsOf(trace: LogitsTrace | null, needed: boolean): number {
  if (!needed) return Number.POSITIVE_INFINITY;
  return trace?.steps.length ?? 0;
}

function missingTraces(thunk: ModelOutputThunk<unknown>, processed: boolean, raw: boolean): string | null {
  if (processed && thunk.generation.logits === null) {
    return 'The output has no processed logits trace: generate with modelOptions.logits (a top-k size or "full").';
  }
  if (raw && thunk.generation.rawLogits === null) {
    return 'The output has no raw logits trace: generate with modelOptions.rawLogits (a top-k size or "full").';
  }
  return null;
}
