const dataUriPattern = /^data:([^;,]*)(?:;[^,]*)?,/i;
const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;

export interface SplitDataUri {
  /** The MIME type of a data URI, lower-case; null for raw base64. */
  mimeType: string | null;
  /** The base64 payload, with whitespace removed and padding added. */
  base64: string;
}

/** Split an optional data URI prefix off a base64 string and normalise the payload (padding added). */
export function splitDataUri(input: string): SplitDataUri {
  const match = dataUriPattern.exec(input);
  const mimeType = match ? match[1]!.toLowerCase() : null;
  const payload = (match ? input.slice(match[0].length) : input).replace(/\s+/g, "");
  const unpadded = payload.replace(/=+$/, "");
  const padding = (4 - (unpadded.length % 4)) % 4;
  return { mimeType, base64: unpadded + "=".repeat(padding) };
}

/**
 * Decode strict base64 (Buffer.from alone silently skips invalid characters), or return null. A length
 * that leaves one dangling character cannot be base64 at all.
 */
export function decodeBase64(base64: string): Buffer | null {
  if (!base64Pattern.test(base64)) return null;
  if (base64.replace(/=+$/, "").length % 4 === 1) return null;
  return Buffer.from(base64, "base64");
}

/** Bytes a base64 string decodes to, without decoding it. */
export function decodedLength(base64: string): number {
  const unpadded = base64.replace(/=+$/, "").length;
  return Math.floor((unpadded * 3) / 4);
}
