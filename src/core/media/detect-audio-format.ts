/**
 * The audio format of decoded bytes, by content (magic bytes), not by file name: "wav", "mp3", "flac",
 * "ogg", "m4a", "mp4", "webm"; null when unrecognised.
 */
export function detectAudioFormat(data: Uint8Array): string | null {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const ascii = (start: number, end: number) => bytes.subarray(start, end).toString("latin1");
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WAVE") return "wav";
  if (ascii(0, 3) === "ID3") return "mp3";
  if (ascii(0, 4) === "fLaC") return "flac";
  if (ascii(0, 4) === "OggS") return "ogg";
  if (bytes.length >= 12 && ascii(4, 8) === "ftyp") {
    const brand = ascii(8, 12);
    return brand === "M4A " || brand === "M4B " ? "m4a" : "mp4";
  }
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x1a45dfa3) {
    // EBML header: WebM and Matroska share it; the DocType says which.
    return ascii(0, Math.min(bytes.length, 64)).includes("webm") ? "webm" : "mkv";
  }
  // MPEG audio frame sync: 11 set bits; layer bits 00 would be AAC (ADTS), not MP3.
  if (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0 && (bytes[1]! & 0x06) !== 0)
    return "mp3";
  return null;
}
