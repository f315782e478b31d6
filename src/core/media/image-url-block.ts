import { CBlock } from "../cblock.js";
import { InvalidImageError } from "../errors/invalid-image-error.js";
import { ImageBlock } from "./image-block.js";
import { type DownloadOptions, downloadBytes } from "./safe-download.js";

export interface ImageUrlBlockOptions {
  meta?: Record<string, unknown>;
}

// Process-wide, keyed by URL (and whether private addresses were allowed): a URL reused across turns,
// even through a new block, is fetched once. Failures are not kept, so a later call retries.
const resolvedImages = new Map<string, Promise<string>>();

/** An image referenced by an http(s) URL; backends that need inline images call resolveBase64(). */
export class ImageUrlBlock extends CBlock {
  constructor(url: string, options: ImageUrlBlockOptions = {}) {
    if (!isHttpUrl(url)) throw new InvalidImageError("an ImageUrlBlock needs an http:// or https:// URL");
    super(url, options.meta === undefined ? {} : { meta: options.meta });
  }

  override get value(): string {
    return super.value as string;
  }

  override set value(value: string) {
    if (!isHttpUrl(value)) throw new InvalidImageError("an ImageUrlBlock needs an http:// or https:// URL");
    super.value = value;
  }

  /** The image as base64 PNG, downloaded (with a byte cap, timeout and address checks) once per URL. */
  resolveBase64(options: DownloadOptions = {}): Promise<string> {
    return resolveImageUrl(this.value, options);
  }
}

export function resolveImageUrl(url: string, options: DownloadOptions = {}): Promise<string> {
  const key = `${options.allowPrivateNetwork === true ? "private" : "public"} ${url}`;
  let pending = resolvedImages.get(key);
  if (pending === undefined) {
    pending = downloadBytes(url, options).then((download) => ImageBlock.imageToBase64(download.bytes));
    resolvedImages.set(key, pending);
    pending.catch(() => resolvedImages.delete(key));
  }
  return pending;
}

/** Forget every memoized download (tests, or long-running processes that want fresh copies). */
export function clearImageUrlCache(): void {
  resolvedImages.clear();
}

export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value) && URL.canParse(value);
}
