import { readFile } from "node:fs/promises";
import { CBlock } from "../cblock.js";
import { InvalidAudioError } from "../errors/invalid-audio-error.js";
import { decodeBase64, decodedLength, splitDataUri } from "./base64.js";
import { detectAudioFormat } from "./detect-audio-format.js";
import { type DownloadOptions, downloadBytes } from "./safe-download.js";

/** Largest decoded audio accepted, in bytes. */
export const audioLimits = { maxBytes: 25 * 1024 * 1024 };

export interface AudioBlockOptions {
  /** "wav", "mp3", ...; required for raw base64, taken from the MIME type of a data URI otherwise. */
  format?: string | null;
  meta?: Record<string, unknown>;
}

// MIME subtypes whose format name differs from the subtype.
const formatBySubtype: Record<string, string> = {
  mpeg: "mp3",
  mp3: "mp3",
  wave: "wav",
  "x-wav": "wav",
  vnd_wave: "wav",
  "x-flac": "flac",
  "x-m4a": "m4a",
  mp4: "m4a",
};

/** Audio as base64. The value is the bare base64 (data URI prefix removed, padding added). */
export class AudioBlock extends CBlock {
  readonly format: string;

  constructor(value: string, options: AudioBlockOptions = {}) {
    if (typeof value !== "string")
      throw new InvalidAudioError(`expected a base64 string but received ${typeof value}`);
    const { mimeType, base64 } = splitDataUri(value);
    checkAudio(base64);
    const format = options.format ?? formatFromMimeType(mimeType);
    if (format === null) {
      throw new InvalidAudioError(
        'the format is unknown: pass { format } (for example "wav") for raw base64, or use a data URI such as data:audio/wav;base64,...',
      );
    }
    super(base64, options.meta === undefined ? {} : { meta: options.meta });
    this.format = format;
  }

  /** The audio as a data URI. */
  get dataUri(): string {
    return `data:audio/${this.format};base64,${this.value}`;
  }

  /** Whether `input` decodes as base64 (a data URI prefix is stripped and padding added first). */
  static isValidBase64Audio(input: string): boolean {
    return decodeBase64(splitDataUri(input).base64) !== null;
  }

  /** The format of decoded audio bytes by magic bytes, or null. */
  static detectFormat(data: Uint8Array): string | null {
    return detectAudioFormat(data);
  }

  /** An AudioBlock from raw bytes; the format is detected from them unless given. */
  static fromBytes(data: Uint8Array, options: AudioBlockOptions = {}): AudioBlock {
    if (data.byteLength > audioLimits.maxBytes) {
      throw new InvalidAudioError(`${data.byteLength} bytes exceeds the ${audioLimits.maxBytes}-byte cap`);
    }
    const format = options.format ?? detectAudioFormat(data);
    if (format === null) {
      throw new InvalidAudioError(
        "the format could not be detected from the bytes (not wav, mp3, flac, ogg, m4a, mp4 or webm); pass { format }",
      );
    }
    const base64 = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
    return new AudioBlock(base64, { ...options, format });
  }

  /** An AudioBlock from a file; the format is detected from its contents, not its extension. */
  static async fromFile(path: string, options: AudioBlockOptions = {}): Promise<AudioBlock> {
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch (error) {
      // The OS error repeats the whole argument, which may be huge (base64 passed by mistake); name it briefly.
      const shown = path.length > 80 ? `${path.slice(0, 77)}...` : path;
      const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
      throw new InvalidAudioError(`cannot open the audio file "${shown}" (${code}); check the path`, error);
    }
    return AudioBlock.fromBytes(data, options);
  }

  /** Download audio now (http/https only, capped, timed out, private addresses refused unless allowed). */
  static async fromUrl(url: string, options: AudioBlockOptions & DownloadOptions = {}): Promise<AudioBlock> {
    const download = await downloadBytes(url, { maxBytes: audioLimits.maxBytes, ...options });
    return AudioBlock.fromBytes(download.bytes, options);
  }
}

function formatFromMimeType(mimeType: string | null): string | null {
  if (mimeType === null || !mimeType.startsWith("audio/")) return null;
  const subtype = mimeType.slice("audio/".length);
  if (subtype.length === 0) return null;
  return formatBySubtype[subtype] ?? subtype.replace(/^x-/, "");
}

function checkAudio(base64: string): void {
  if (decodedLength(base64) > audioLimits.maxBytes) {
    throw new InvalidAudioError(`it decodes to more than ${audioLimits.maxBytes} bytes`);
  }
  if (decodeBase64(base64) === null) throw new InvalidAudioError("the data is not valid base64");
}
