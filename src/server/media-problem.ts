import { InvalidAudioError } from "../core/errors/invalid-audio-error.js";
import { InvalidImageError } from "../core/errors/invalid-image-error.js";

/**
 * What is wrong with an image or audio part, in HTTP terms: the media errors' own messages end with
 * advice for library users (ImageBlock.fromImage() and the like), which HTTP clients cannot follow.
 */
export function mediaProblem(error: unknown): string | null {
  if (!InvalidImageError.isInstance(error) && !InvalidAudioError.isInstance(error)) return null;
  const problem = error.message
    .replace(/^Invalid (image|audio): /, "")
    // Library advice: a sentence or clause naming a class or method.
    .replace(/(;|\.) [^.;]*\b[A-Z][A-Za-z]*Block\b[^;]*$/, "")
    .replace(/; convert with [^;.]*$/, "")
    .replace(/^an? [A-Z][A-Za-z]*UrlBlock needs (.*)$/, "it is not a data URL and not $1")
    .replace(/\.$/, "");
  return problem;
}

/** What an HTTP client should send instead, by content part type. */
export const mediaAdvice = {
  image_url:
    "Send a PNG as a data URL (data:image/png;base64,...) or an http(s) URL; convert other image formats to PNG first",
  input_audio: 'Send base64 audio data with its format (for example "wav" or "mp3")',
} as const;
