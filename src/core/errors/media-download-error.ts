import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.MediaDownloadError");

/** Why a media download was refused or failed. */
export type MediaDownloadFailure =
  | "unsupported-scheme"
  | "private-address"
  | "too-large"
  | "timeout"
  | "too-many-redirects"
  | "http-status"
  | "network";

/** Downloading an image or audio URL was refused or failed; nothing partial is used. */
export class MediaDownloadError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-media";
  readonly url: string;
  readonly failure: MediaDownloadFailure;

  constructor(url: string, failure: MediaDownloadFailure, detail: string, cause?: unknown) {
    super(`Could not download ${shorten(url)}: ${detail}.`, { cause });
    this.name = "MediaDownloadError";
    this.url = url;
    this.failure = failure;
  }

  static override isInstance(error: unknown): error is MediaDownloadError {
    return hasErrorMarker(error, marker);
  }
}

// URLs can be data-bearing and long; the message keeps enough to recognise it.
function shorten(url: string): string {
  return url.length > 120 ? `${url.slice(0, 117)}...` : url;
}
