import { InvalidImageError } from "../errors/invalid-image-error.js";
import { ImageBlock, type ImageSource } from "./image-block.js";
import { ImageUrlBlock, isHttpUrl, resolveImageUrl } from "./image-url-block.js";
import type { DownloadOptions } from "./safe-download.js";

export interface MakeImageBlockOptions extends DownloadOptions {
  /** Download a URL now and return an ImageBlock instead of an ImageUrlBlock. */
  convertToBase64?: boolean;
  meta?: Record<string, unknown>;
}

/**
 * The right image block for a source: image bytes become an ImageBlock (converted to PNG); an http(s) URL
 * an ImageUrlBlock (or, with convertToBase64, a downloaded ImageBlock); a base64 PNG string (data URI or
 * not) an ImageBlock. Any other string or value throws InvalidImageError.
 */
export async function makeImageBlock(
  source: string | Exclude<ImageSource, string>,
  options: MakeImageBlockOptions = {},
): Promise<ImageBlock | ImageUrlBlock> {
  const blockOptions = options.meta === undefined ? {} : { meta: options.meta };
  if (typeof source !== "string") {
    if (!(source instanceof Uint8Array) && !(source instanceof ArrayBuffer)) {
      throw new InvalidImageError(
        `expected a string or image bytes but received ${source === null ? "null" : typeof source}`,
      );
    }
    return ImageBlock.fromImage(source, blockOptions);
  }
  if (isHttpUrl(source)) {
    if (!options.convertToBase64) return new ImageUrlBlock(source, blockOptions);
    return new ImageBlock(await resolveImageUrl(source, options), blockOptions);
  }
  if (ImageBlock.isValidBase64Png(source)) return new ImageBlock(source, blockOptions);
  throw new InvalidImageError("the string is neither an http(s) URL nor a base64-encoded PNG");
}
