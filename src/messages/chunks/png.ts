import { z } from "zod";
import { decodeBase64, decodedLength, splitDataUri } from "../../core/media/base64.js";
import { imageLimits } from "../../core/media/image-block.js";

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * Why `bytes` cannot be an image chunk, or null when they can: a PNG within core's byte and pixel
 * caps. The pixel count comes from the IHDR header, so a decompression bomb is refused unread.
 */
export function pngProblem(bytes: Uint8Array): string | null {
  if (bytes.length > imageLimits.maxBytes) return `the image is larger than ${imageLimits.maxBytes} bytes`;
  if (bytes.length < 24 || !pngSignature.every((byte, index) => bytes[index] === byte)) {
    return "expected PNG bytes (they must start with the PNG signature 89 50 4E 47); convert the image to PNG first";
  }
  const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const width = header.getUint32(16);
  const height = header.getUint32(20);
  if (width * height > imageLimits.maxPixels) {
    return `${width}×${height} pixels exceeds the ${imageLimits.maxPixels}-pixel cap`;
  }
  return null;
}

export const pngBytesSchema = z
  .instanceof(Uint8Array, { message: "expected the image as a Uint8Array of PNG bytes" })
  .superRefine((bytes, context) => {
    const problem = pngProblem(bytes);
    if (problem !== null) context.addIssue({ code: "custom", input: bytes, message: problem });
  });

/** "data:image/png;base64,...." or bare base64 → PNG bytes, reporting problems as zod issues. */
export const pngFromBase64Schema = z.string().transform((value, context) => {
  const { base64 } = splitDataUri(value);
  // Checked before decoding so a huge payload is never allocated.
  if (decodedLength(base64) > imageLimits.maxBytes) {
    context.issues.push({
      code: "custom",
      input: value,
      message: `the image is larger than ${imageLimits.maxBytes} bytes`,
    });
    return z.NEVER;
  }
  const decoded = decodeBase64(base64);
  if (decoded === null) {
    context.issues.push({
      code: "custom",
      input: value,
      message: "expected base64 image data (or a data URI)",
    });
    return z.NEVER;
  }
  const bytes = new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength).slice();
  const problem = pngProblem(bytes);
  if (problem !== null) {
    context.issues.push({ code: "custom", input: value, message: problem });
    return z.NEVER;
  }
  return bytes;
});

export function pngToDataUri(bytes: Uint8Array): string {
  return `data:image/png;base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}
