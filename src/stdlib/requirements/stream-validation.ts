import type { Context } from "../../core/context.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { PartialValidationResult, type Requirement } from "../../core/requirement.js";
import { Chunker } from "../chunking/chunker.js";
import { StreamingValidationFailedError } from "../errors/streaming-validation-failed-error.js";

/** The first streaming check that failed on a sample. */
export interface StreamFailure {
  readonly requirement: Requirement;
  readonly result: PartialValidationResult;
  readonly chunkIndex: number;
  /**
   * True when the fail did not cancel the sample, which ran to its end: it came from the trailing fragment,
   * or from a streamValidate that threw (see `error`). The final check then decides.
   */
  readonly atEnd: boolean;
  /** What streamValidate threw, when the failure is a throw rather than a "fail" verdict. */
  readonly error?: unknown;
}

export interface StreamValidationOptions {
  /** Called with each delta as it is read, before it is checked (for latency measurements). */
  onDelta?: (delta: string) => void;
}

interface RequirementCursor {
  readonly requirement: Requirement;
  readonly chunker: Chunker | null;
  chunkIndex: number;
  /** Set when its streamValidate threw: it is not asked again on this sample. */
  thrown: StreamFailure | null;
}

/** The requirements that check samples while they stream. */
export function streamingRequirements(requirements: readonly Requirement[]): Requirement[] {
  return requirements.filter((requirement) => typeof requirement.streamValidate === "function");
}

/**
 * Read `thunk` to the end as its single consumer, running every requirement's streamValidate on each chunk
 * (cut by the requirement's streamChunking; every delta without one). At the first "fail" the generation is
 * cancelled with a StreamingValidationFailedError: the thunk keeps its partial text and is flagged
 * `cancelled`, and the failure is returned (also kept in thunk.meta.streamFailure). Requirements without
 * streamValidate are left to the final validation. A streamValidate that throws is a bug in that check, not
 * a verdict on the sample: it is not asked again on this sample, nothing is cancelled, and unless another
 * check fails, its error is returned as an `atEnd` failure (reason "streamValidate threw: ...") so the final
 * check decides. A generation error is thrown as avalue() would.
 */
export async function validateWhileStreaming(
  thunk: ModelOutputThunk<unknown>,
  requirements: readonly Requirement[],
  context: Context,
  options: StreamValidationOptions = {},
): Promise<StreamFailure | null> {
  const cursors: RequirementCursor[] = streamingRequirements(requirements).map((requirement) => ({
    requirement,
    chunker: requirement.streamChunking ? new Chunker(requirement.streamChunking) : null,
    chunkIndex: 0,
    thrown: null,
  }));
  if (thunk.isComputed()) return null;
  for await (const delta of thunk) {
    options.onDelta?.(delta);
    for (const cursor of cursors) {
      if (cursor.thrown !== null) continue;
      const chunks = cursor.chunker === null ? [delta] : cursor.chunker.feed(delta);
      const failure = await checkChunks(thunk, cursor, chunks, context, false);
      if (failure !== null) {
        await thunk.cancelGeneration(
          new StreamingValidationFailedError(
            failure.requirement.description,
            failure.result.reason,
            failure.chunkIndex,
          ),
        );
        return record(thunk, failure);
      }
    }
  }
  // Cancelled by someone else (a strategy stopping a sample that can no longer win): nothing to flush.
  if (thunk.cancelled) return null;
  for (const cursor of cursors) {
    if (cursor.chunker === null || cursor.thrown !== null) continue;
    const failure = await checkChunks(thunk, cursor, cursor.chunker.flush(), context, true);
    if (failure !== null) return record(thunk, failure);
  }
  const thrown = cursors.find((cursor) => cursor.thrown !== null)?.thrown ?? null;
  return thrown === null ? null : record(thunk, thrown);
}

async function checkChunks(
  thunk: ModelOutputThunk<unknown>,
  cursor: RequirementCursor,
  chunks: readonly string[],
  context: Context,
  final: boolean,
): Promise<StreamFailure | null> {
  for (const chunk of chunks) {
    const chunkIndex = cursor.chunkIndex++;
    let result: PartialValidationResult;
    try {
      result = await cursor.requirement.streamValidate!(
        { chunk, chunkIndex, text: thunk.value ?? "", final, thunk },
        context,
      );
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      cursor.thrown = {
        requirement: cursor.requirement,
        result: new PartialValidationResult("fail", { reason: `streamValidate threw: ${message}` }),
        chunkIndex,
        atEnd: true,
        error,
      };
      return null;
    }
    if (result.success === "fail")
      return { requirement: cursor.requirement, result, chunkIndex, atEnd: final };
  }
  return null;
}

function record(thunk: ModelOutputThunk<unknown>, failure: StreamFailure): StreamFailure {
  thunk.meta.streamFailure = {
    requirement: failure.requirement.description,
    reason: failure.result.reason,
    chunkIndex: failure.chunkIndex,
    atEnd: failure.atEnd,
  };
  return failure;
}
