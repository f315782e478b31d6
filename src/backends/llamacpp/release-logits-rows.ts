import type { GenerationMetadata } from "../../core/generation-metadata.js";
import { loadNativeAddon } from "./native-addon.js";

/**
 * Gives the full logits rows of a generation back to the context they came from now, instead of when the
 * garbage collector finds their arrays. Each row of a full capture is a vocabulary-sized buffer (513 KB on a
 * 128k vocabulary) that the context reuses for later tokens once it is back; a result that keeps its rows
 * (a thunk's logits trace does, until the thunk is dropped) returns them only at a collection during some
 * later generation, which meanwhile copies or allocates fresh rows while it decodes. On the 2-core AMD VM
 * that cost a 1B model's full captures at 2 threads 0.95x of off instead of 0.98x (docs/benchmarks.md,
 * "Round nine"). Call it when you are done reading the rows.
 *
 * `source` is a generation's metadata (`thunk.generation`: the `full` arrays of its `logits` and `rawLogits`
 * traces), or the rows themselves (`event.rawLogits.full` and `event.logits.full` of LlamaContext.generate's
 * events). Afterwards every one of those arrays reads as empty (length 0), wherever it is held: its buffer is
 * detached, so nothing can read a row the context hands out again. Arrays already released, and views into
 * part of a buffer, are skipped; an array that spans its whole buffer is detached whatever it is, which
 * empties every other view of that buffer too, so pass only rows (or arrays whose buffer is yours alone).
 * Returns how many were released; 0, without loading the native addon, when there are none (a generation
 * without full captures, or from another backend).
 */
export function releaseLogitsRows(source: GenerationMetadata | Iterable<Float32Array>): number {
  const rows: Float32Array[] = [];
  if (isGenerationMetadata(source)) {
    for (const trace of [source.logits, source.rawLogits]) {
      for (const step of trace?.steps ?? []) if (step.full !== undefined) rows.push(step.full);
    }
  } else {
    for (const row of source) rows.push(row);
  }
  // Only arrays that are their whole buffer, as captured rows are: detaching a view into a shared buffer (a
  // slab of Node's Buffer pool) would empty everything else in it. And only buffers that still hold
  // something: no addon to load for a generation without full rows.
  const live = rows.filter(
    (row) => row.byteLength > 0 && row.byteOffset === 0 && row.byteLength === row.buffer.byteLength,
  );
  return live.length === 0 ? 0 : loadNativeAddon().releaseRows(live);
}

function isGenerationMetadata(
  source: GenerationMetadata | Iterable<Float32Array>,
): source is GenerationMetadata {
  return "logits" in source && "rawLogits" in source;
}
