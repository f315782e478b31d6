import sharp from "sharp";
import { CBlock } from "../cblock.js";
import { InvalidImageError } from "../errors/invalid-image-error.js";
import { decodeBase64, decodedLength, splitDataUri } from "./base64.js";

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Caps applied to every image before it can reach a model (decompression bombs, oversized uploads). */
export const imageLimits = {
  /** Largest decoded PNG, in bytes. */
  maxBytes: 20 * 1024 * 1024,
  /** Largest width × height. */
  maxPixels: 50_000_000,
};

export interface ImageBlockOptions {
  meta?: Record<string, unknown>;
}

/** Input sharp can read: encoded image bytes, or a file path. */
export type ImageSource = Buffer | Uint8Array | ArrayBuffer | string;

/** An image as base64 PNG. The value is the bare base64 (data URI prefix removed, padding added). */
export class ImageBlock extends CBlock {
  /** `value`: base64 PNG, with or without a `data:image/png;base64,` prefix. Anything else throws InvalidImageError. */
  constructor(value: string, options: ImageBlockOptions = {}) {
    if (typeof value !== "string")
      throw new InvalidImageError(`expected a base64 string but received ${typeof value}`);
    const { base64 } = splitDataUri(value);
    checkPng(base64);
    super(base64, options.meta === undefined ? {} : { meta: options.meta });
  }

  override get value(): string {
    return super.value as string;
  }

  override set value(value: string) {
    const { base64 } = splitDataUri(value);
    checkPng(base64);
    super.value = base64;
  }

  /** The image as a `data:image/png;base64,...` URI. */
  get dataUri(): string {
    return `data:image/png;base64,${this.value}`;
  }

  /** Whether `input` decodes to a PNG (a data URI prefix is stripped and padding added first). */
  static isValidBase64Png(input: string): boolean {
    try {
      checkPng(splitDataUri(input).base64);
      return true;
    } catch {
      return false;
    }
  }

  /** Encode any image sharp can read (PNG, JPEG, WebP, GIF, TIFF, AVIF, SVG...) as base64 PNG. */
  static async imageToBase64(image: ImageSource): Promise<string> {
    const input = image instanceof ArrayBuffer ? Buffer.from(image) : image;
    try {
      // limitInputPixels makes sharp refuse a decompression bomb from its header, before decoding it.
      const png = await sharp(input, { limitInputPixels: imageLimits.maxPixels }).png().toBuffer();
      return png.toString("base64");
    } catch (error) {
      const source = typeof image === "string" ? "the file" : "the bytes";
      throw new InvalidImageError(
        `${source} could not be read as an image (${(error as Error).message})`,
        error,
      );
    }
  }

  /** An ImageBlock from any image sharp can read (bytes or a file path), converted to PNG. */
  static async fromImage(image: ImageSource, options: ImageBlockOptions = {}): Promise<ImageBlock> {
    return new ImageBlock(await ImageBlock.imageToBase64(image), options);
  }
}

function checkPng(base64: string): void {
  if (decodedLength(base64) > imageLimits.maxBytes) {
    throw new InvalidImageError(`it decodes to more than ${imageLimits.maxBytes} bytes`);
  }
  const bytes = decodeBase64(base64);
  if (bytes === null) throw new InvalidImageError("the data is not valid base64");
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(pngSignature)) {
    throw new InvalidImageError(
      "the bytes are not a PNG (no PNG signature); convert with ImageBlock.fromImage()",
    );
  }
  // IHDR follows the signature: width and height sit at bytes 16..24.
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  // The PNG specification allows 1..2^31-1 in each direction; a zero side makes the pixel cap meaningless.
  if (width < 1 || height < 1 || width > 0x7fffffff || height > 0x7fffffff) {
    throw new InvalidImageError(
      `its header declares ${width}×${height} pixels; each side must be 1 to 2^31-1`,
    );
  }
  if (width * height > imageLimits.maxPixels) {
    throw new InvalidImageError(`${width}×${height} pixels exceeds the ${imageLimits.maxPixels}-pixel cap`);
  }
}
