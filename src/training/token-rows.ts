// The layout ggml-opt trains on: rows of `sequenceLength + 1` tokens, where the model reads the first
// `sequenceLength` and is scored on predicting each next one (the row shifted by one). llama.cpp's
// common_opt_dataset_init cuts one token stream at a fixed stride, so rows start anywhere, mid-line
// and mid-word; here each row is cut from the stream at a caller-chosen set of start positions (line
// starts for a line-based task), and begins with BOS as every prompt at inference does.

export interface TokenRowsOptions {
  readonly sequenceLength: number;
  /** Token placed first in every row (BOS), or undefined for none. */
  readonly firstToken?: number;
  /** Positions in `stream` where a row may start; every position when undefined. */
  readonly starts?: readonly number[];
  /** Distance between consecutive row starts, in tokens (rows may overlap when it is below the length). */
  readonly stride: number;
}

/** Rows of `sequenceLength + 1` tokens from `stream`, packed into one Int32Array. */
export function tokenRows(stream: Int32Array, options: TokenRowsOptions): Int32Array {
  const width = options.sequenceLength + 1;
  const body = options.firstToken === undefined ? width : width - 1;
  const rows: number[] = [];
  let nextAllowed = 0;
  const candidates = options.starts ?? Array.from({ length: stream.length }, (_, index) => index);
  for (const start of candidates) {
    if (start < nextAllowed) continue;
    if (start + body > stream.length) break;
    rows.push(start);
    nextAllowed = start + options.stride;
  }
  const packed = new Int32Array(rows.length * width);
  rows.forEach((start, row) => {
    let offset = row * width;
    if (options.firstToken !== undefined) packed[offset++] = options.firstToken;
    packed.set(stream.subarray(start, start + body), offset);
  });
  return packed;
}

/** Indices just after each `separator` token (and 0): where lines start. */
export function lineStarts(stream: Int32Array, separator: number): number[] {
  const starts = [0];
  for (let index = 0; index < stream.length - 1; index++)
    if (stream[index] === separator) starts.push(index + 1);
  return starts;
}
