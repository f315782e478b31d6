import { CBlock } from "../cblock.js";
import { InvalidAudioError } from "../errors/invalid-audio-error.js";
import { audioLimits } from "./audio-block.js";
import { isHttpUrl } from "./image-url-block.js";
import { type DownloadOptions, downloadBytes } from "./safe-download.js";

export interface AudioUrlBlockOptions {
  /** "wav", "mp3", ...; null to leave it to whoever resolves the URL. */
  format?: string | null;
  meta?: Record<string, unknown>;
}

// Process-wide, keyed by URL: a clip re-sent across turns is fetched once. Failures are not kept.
const resolvedAudio = new Map<string, Promise<string>>();

/** Audio referenced by an http(s) URL; providers need audio inline, so backends call resolveBase64(). */
export class AudioUrlBlock extends CBlock {
  readonly format: string | null;

  constructor(url: string, options: AudioUrlBlockOptions = {}) {
    if (typeof url !== "string" || !isHttpUrl(url))
      throw new InvalidAudioError("an AudioUrlBlock needs an http:// or https:// URL");
    super(url, options.meta === undefined ? {} : { meta: options.meta });
    this.format = options.format ?? null;
  }

  override get value(): string {
    return super.value as string;
  }

  override set value(value: string) {
    if (typeof value !== "string" || !isHttpUrl(value))
      throw new InvalidAudioError("an AudioUrlBlock needs an http:// or https:// URL");
    super.value = value;
  }

  /** The audio as raw base64 (no data URI prefix), downloaded once per URL. */
  resolveBase64(options: DownloadOptions = {}): Promise<string> {
    const key = `${options.allowPrivateNetwork === true ? "private" : "public"} ${this.value}`;
    let pending = resolvedAudio.get(key);
    if (pending === undefined) {
      pending = downloadBytes(this.value, { maxBytes: audioLimits.maxBytes, ...options }).then((download) =>
        download.bytes.toString("base64"),
      );
      resolvedAudio.set(key, pending);
      pending.catch(() => resolvedAudio.delete(key));
    }
    return pending;
  }
}

/** Forget every memoized audio download. */
export function clearAudioUrlCache(): void {
  resolvedAudio.clear();
}
