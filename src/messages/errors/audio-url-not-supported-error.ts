import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.AudioUrlNotSupportedError");

/** OpenAI chat completions take audio only inline (base64), never by URL. */
export class AudioUrlNotSupportedError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "unsupported-input";
  readonly url: string;

  constructor(url: string) {
    super(
      `Cannot send audio by URL (${url}) to an OpenAI-compatible server: the chat completions audio schema ` +
        "has no audio-by-URL part. Download the audio and attach it as an AudioBlock with base64 data.",
    );
    this.name = "AudioUrlNotSupportedError";
    this.url = url;
  }

  static override isInstance(error: unknown): error is AudioUrlNotSupportedError {
    return hasErrorMarker(error, marker);
  }
}
