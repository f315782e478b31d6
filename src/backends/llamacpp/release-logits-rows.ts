import type { GenerationMetadata } from "../../core/generation-metadata.js";
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
 * Only rows the native addon handed out are released; anything else in the list, and rows released
 * already, are skipped. Returns how many rows were released; 0, without loading the native addon, when
 * there are none (a generation without full captures, or from another backend).
 */
export function releaseLogitsRows(source: GenerationMetadata | Iterable<Float32Array>): number {
  if (typeof source !== "object" || source === null || ArrayBuffer.isView(source)) {
    throw new ReleaseSourceError(source);
  }
  const rows: unknown[] = [];
  if (Symbol.iterator in source) {
    for (const row of source) rows.push(row);
  } else if ("logits" in source || "rawLogits" in source) {
    for (const trace of [source.logits, source.rawLogits]) {
      for (const step of trace?.steps ?? []) {
        if (step.full === undefined) continue;
        rows.push(step.full);
        delete step.full;
      }
    }
  } else {
    throw new ReleaseSourceError(source);
  }
  // No addon to load when nothing could be a row (a generation without full captures).
  const candidates = rows.filter((row) => row instanceof Float32Array && row.byteLength > 0);
  return candidates.length === 0 ? 0 : loadNativeAddon().releaseRows(candidates);
}
