import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufInvalidTensorInfoError";
const symbol = Symbol.for(marker);

/**
 * A tensor-table entry that lies (bad-inputs case 4): too many dimensions, negative or overflowing sizes,
 * an unknown type, a duplicate name, or data that is misaligned or lies past the end of the file.
 */
export class GgufInvalidTensorInfoError extends GgufError {
  readonly [symbol] = true;
  readonly offset: number;
  readonly tensorName: string | undefined;

  constructor(options: { offset: number; tensorName?: string; problem: string }) {
    const where = options.tensorName === undefined ? "" : ` for tensor "${options.tensorName}"`;
    super(
      `Invalid GGUF tensor info at byte offset ${options.offset}${where}: ${options.problem}. ` +
        `The file is corrupt or hostile; do not load it.`,
    );
    this.name = "GgufInvalidTensorInfoError";
    this.offset = options.offset;
    this.tensorName = options.tensorName;
  }

  static override isInstance(error: unknown): error is GgufInvalidTensorInfoError {
    return GgufError.hasMarker(error, marker);
  }
}
