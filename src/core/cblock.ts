import { BlockValueTypeError } from "./errors/block-value-type-error.js";

export interface CBlockOptions {
  /** Metadata about the block (for example the inference engine's completion object). */
  meta?: Record<string, unknown>;
  /** When true, the inference engine may keep the KV cache for this block. Experimental. */
  cache?: boolean;
}

/** A block of content that can serve as input to or output from an LLM. */
export class CBlock {
  #value: string | null;
  meta: Record<string, unknown>;
  cache: boolean;

  constructor(value: string | null, options: CBlockOptions = {}) {
    this.#value = CBlock.checkValue(new.target.name, value);
    this.meta = options.meta ?? {};
    this.cache = options.cache ?? false;
  }

  get value(): string | null {
    return this.#value;
  }

  set value(value: string | null) {
    this.#value = CBlock.checkValue(this.constructor.name, value);
  }

  toString(): string {
    return this.#value ?? "";
  }

  // Values often arrive from untyped sources (JSON, tool results); catching a non-string here names the
  // culprit instead of failing later inside a template.
  private static checkValue(owner: string, value: unknown): string | null {
    if (value === null || typeof value === "string") return value;
    throw new BlockValueTypeError(owner, value, true);
  }
}
