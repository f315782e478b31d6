import { z } from "zod";

/** Decoded images are capped so a hostile data URI cannot make us allocate without bound. */
export const maxImageBytes = 20 * 1024 * 1024;

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= pngSignature.length && pngSignature.every((byte, index) => bytes[index] === byte);
}

export const pngBytesSchema = z
  .instanceof(Uint8Array, { message: "expected the image as a Uint8Array of PNG bytes" })
  .refine((bytes) => bytes.length <= maxImageBytes, {
    message: `image is larger than ${maxImageBytes} bytes`,
  })
  .refine(isPng, {
    message:
      "expected PNG bytes (they must start with the PNG signature 89 50 4E 47); convert the image to PNG first",
  });

const dataUriPrefix = /^data:image\/\w+;base64,/;
const base64Body = /^[A-Za-z0-9+/]*={0,2}$/;

/** "data:image/png;base64,...." or bare base64 → PNG bytes, reporting problems as zod issues. */
export const pngFromBase64Schema = z.string().transform((value, context) => {
  const body = value.replace(dataUriPrefix, "");
  if (body.length > Math.ceil((maxImageBytes * 4) / 3) + 4) {
    context.issues.push({
      code: "custom",
      input: value,
      message: `image is larger than ${maxImageBytes} bytes`,
    });
    return z.NEVER;
  }
  if (!base64Body.test(body) || body.length % 4 === 1) {
    context.issues.push({
      code: "custom",
      input: value,
      message: "expected base64 image data (or a data URI)",
    });
    return z.NEVER;
  }
  const bytes = new Uint8Array(Buffer.from(body, "base64"));
  if (!isPng(bytes)) {
    context.issues.push({ code: "custom", input: value, message: "the decoded bytes are not a PNG image" });
    return z.NEVER;
  }
  return bytes;
});

export function pngToDataUri(bytes: Uint8Array): string {
  return `data:image/png;base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}
