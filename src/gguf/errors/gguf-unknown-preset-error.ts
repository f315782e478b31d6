import type { ErrorKind } from "../../core/errors/error-kind.js";
import { GgufError } from "./gguf-error.js";

const marker = "tessera.gguf.GgufUnknownPresetError";
const symbol = Symbol.for(marker);

/** `resolveModel` got something that is neither an existing file nor a known preset[:type]. */
export class GgufUnknownPresetError extends GgufError {
  readonly [symbol] = true;

  override readonly kind: ErrorKind = "not-found";
  readonly requested: string;

  constructor(options: {
    requested: string;
    problem: string;
    presets: readonly string[];
    types: readonly string[];
    /** Trained presets (committed files, no :type); left out of the message when empty. */
    trained?: readonly string[];
  }) {
    const trained = options.trained ?? [];
    super(
      `Cannot resolve model "${options.requested}": ${options.problem}. Pass a path to an existing GGUF file ` +
        `or a preset (${options.presets.join(", ")}) optionally followed by :type (${options.types.join(", ")}), ` +
        (trained.length > 0 ? `or a trained preset (${trained.join(", ")}), ` : "") +
        `for example "tiny" or "llama-3.2-1b:q4_0".`,
    );
    this.name = "GgufUnknownPresetError";
    this.requested = options.requested;
  }

  static override isInstance(error: unknown): error is GgufUnknownPresetError {
    return GgufError.hasMarker(error, marker);
  }
}
