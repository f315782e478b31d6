import type { GenerationMetadata } from "../../core/generation-metadata.js";
import type { LogitsStep } from "../../core/logits-trace.js";
import type { NativeAddon } from "./addon-types.js";
import { NativeAddonLoadError } from "./errors/native-addon-load-error.js";
import { ReleaseSourceError } from "./errors/release-source-error.js";
import { loadNativeAddon } from "./native-addon.js";

/**
 * Gives the full logits rows of a generation back to the context they came from now, instead of when the
 * garbage collector finds their arrays. Each row of a full capture is a vocabulary-sized buffer (513 KB on a
 * 128k vocabulary) that the context reuses for later tokens once it is back; a result that keeps its rows
 * (a thunk's logits trace does, until the thunk is dropped) returns them only at a collection during some
 * later generation, which meanwhile decodes into fresh memory (docs/native.md, "Releasing full rows").
 * Call it when you are done reading the rows.
 *
 * `source` is a generation's metadata (`thunk.generation`): the `full` arrays of its `logits` and
 * `rawLogits` traces are released and removed from their steps, so readers of the trace (the inspector,
 * entropy requirements) see steps without full vectors. Or `source` is a list of rows
 * (`event.rawLogits.full` and `event.logits.full` of LlamaContext.generate's events): each is released, and
 * from then on has length 0, index reads give `undefined`, and iterating or copying it throws a TypeError
 * (its buffer is detached), wherever it is held, so nothing can read a row the context hands out again.
 * Only whole rows the native addon handed out are released; anything else in the list (a subarray of a
 * row, a copy of one, any other array) and rows released already are skipped, and a step that cannot be
 * changed (frozen) keeps its row. Release a thunk's rows through `thunk.generation`, not as a list, so that
 * they leave their steps too. Returns how many rows were released; 0, without loading the native addon, when
 * there are none (a generation without full captures, or from another backend).
 */
export function releaseLogitsRows(source: GenerationMetadata | Iterable<Float32Array>): number {
  if (typeof source !== "object" || source === null || ArrayBuffer.isView(source)) {
    throw new ReleaseSourceError(source);
  }
  if (Symbol.iterator in source) {
    const rows: unknown[] = [];
    for (const row of source) rows.push(row);
    // A list of steps, traces or generations is a likely mistake that would release nothing: say so.
    if (rows.some(isLogitsRecord)) {
      throw new ReleaseSourceError(source, "a list holding logits steps, traces or generations, not rows");
    }
    return release(rows.filter(isWholeFloat32Array));
  }
  if (!("logits" in source || "rawLogits" in source)) throw new ReleaseSourceError(source);
  // Every step is checked before any is changed, so a malformed trace throws with nothing taken.
  const steps: LogitsStep[] = [];
  for (const trace of [source.logits, source.rawLogits]) {
    if (trace === null || trace === undefined) continue;
    if (!Array.isArray(trace.steps))
      throw new ReleaseSourceError(source, "a logits trace without a steps array");
    for (const step of trace.steps as unknown[]) {
      if (typeof step !== "object" || step === null) {
        throw new ReleaseSourceError(source, "a logits trace with a step that is not an object");
      }
      steps.push(step as LogitsStep);
    }
  }
  // A row leaves its step before it is released, so that no reader of the trace meets a detached array. A
  // step that cannot be changed (frozen) keeps its row, which then comes back when it is collected; a full
  // vector that turns out not to be a row (another backend's) goes back to its step.
  const taken: Array<{ step: LogitsStep; row: Float32Array }> = [];
  for (const step of steps) {
    const row = step.full;
    if (isWholeFloat32Array(row) && Reflect.deleteProperty(step, "full")) taken.push({ step, row });
  }
  const released = release(taken.map(({ row }) => row));
  for (const { step, row } of taken) if (row.byteLength > 0) Reflect.set(step, "full", row);
  return released;
}

function isLogitsRecord(entry: unknown): boolean {
  return (
    typeof entry === "object" &&
    entry !== null &&
    !ArrayBuffer.isView(entry) &&
    ("full" in entry || "steps" in entry || "logits" in entry || "rawLogits" in entry)
  );
}

// Rows are whole buffers: a view into part of a row (a subarray) is not the caller's row to give up.
function isWholeFloat32Array(row: unknown): row is Float32Array {
  return (
    row instanceof Float32Array &&
    row.byteLength > 0 &&
    row.byteOffset === 0 &&
    row.byteLength === row.buffer.byteLength
  );
}

// The addon detaches the rows it handed out and skips anything else. No addon to load for nothing, and
// none that loads means no row came from it.
function release(rows: Float32Array[]): number {
  if (rows.length === 0) return 0;
  let addon: NativeAddon;
  try {
    addon = loadNativeAddon();
  } catch (error) {
    if (NativeAddonLoadError.isInstance(error)) return 0;
    throw error;
  }
  return addon.releaseRows(rows);
}
