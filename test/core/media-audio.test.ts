import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AudioBlock,
  AudioUrlBlock,
  clearAudioUrlCache,
  detectAudioFormat,
  InvalidAudioError,
  MediaDownloadError,
} from "../../src/core/index.js";

/** A real (silent, 8-sample) PCM WAV file. */
function wavBytes(): Buffer {
  const samples = Buffer.alloc(16);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + samples.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
}

const wav = wavBytes();
let directory: string;
let server: http.Server;
let baseUrl: string;
let hits = 0;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "tessera-audio-"));
  server = http.createServer((request, response) => {
    hits += 1;
    if (request.url === "/clip") response.end(wav);
    else response.end("plain text, not audio");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  clearAudioUrlCache();
  hits = 0;
});

describe("detectAudioFormat", () => {
  const bytes = (...values: Array<number | string>) =>
    Buffer.concat(
      values.map((value) =>
        typeof value === "string" ? Buffer.from(value, "latin1") : Buffer.from([value]),
      ),
    );

  it.each([
    ["wav", wav],
    ["mp3", bytes("ID3", 4, 0, 0)],
    ["mp3", bytes(0xff, 0xfb, 0x90, 0x64)],
    ["flac", bytes("fLaC", 0, 0, 0, 34)],
    ["ogg", bytes("OggS", 0, 2)],
    ["m4a", bytes(0, 0, 0, 32, "ftypM4A ", 0, 0)],
    ["mp4", bytes(0, 0, 0, 32, "ftypisom", 0, 0)],
    ["webm", bytes(0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84, "webm")],
  ])("recognises %s by its magic bytes", (format, data) => {
    expect(detectAudioFormat(data)).toBe(format);
    expect(AudioBlock.detectFormat(data)).toBe(format);
  });

  it("does not mistake AAC (ADTS) frames or text for MP3", () => {
    expect(detectAudioFormat(bytes(0xff, 0xf1, 0x50, 0x80))).toBeNull();
    expect(detectAudioFormat(Buffer.from("hello world"))).toBeNull();
    expect(detectAudioFormat(Buffer.alloc(0))).toBeNull();
  });
});

describe("AudioBlock", () => {
  const base64 = wav.toString("base64");

  it("takes the format from a data URI's MIME type", () => {
    expect(new AudioBlock(`data:audio/wav;base64,${base64}`).format).toBe("wav");
    expect(new AudioBlock(`data:audio/mpeg;base64,${base64}`).format).toBe("mp3");
    expect(new AudioBlock(`data:audio/x-wav;base64,${base64}`).format).toBe("wav");
    const block = new AudioBlock(`data:audio/wav;base64,${base64}`);
    expect(block.value).toBe(base64);
    expect(block.dataUri).toBe(`data:audio/wav;base64,${base64}`);
  });

  it("requires a format for raw base64, and rejects invalid base64", () => {
    expect(() => new AudioBlock(base64)).toThrow(InvalidAudioError);
    expect(() => new AudioBlock(base64)).toThrow(/pass \{ format \}/);
    expect(new AudioBlock(base64, { format: "wav" }).format).toBe("wav");
    expect(() => new AudioBlock("***", { format: "wav" })).toThrow(/not valid base64/);
    expect(AudioBlock.isValidBase64Audio(`data:audio/wav;base64,${base64}`)).toBe(true);
    expect(AudioBlock.isValidBase64Audio("not base64!")).toBe(false);
  });

  it("builds from bytes, detecting the format, or fails when it cannot", () => {
    expect(AudioBlock.fromBytes(wav).format).toBe("wav");
    expect(AudioBlock.fromBytes(Buffer.from("text"), { format: "wav" }).format).toBe("wav");
    expect(() => AudioBlock.fromBytes(Buffer.from("text"))).toThrow(/could not be detected/);
  });

  it("reads a file by content, not extension", async () => {
    const path = join(directory, "clip.mp3");
    await writeFile(path, wav);
    const block = await AudioBlock.fromFile(path);
    expect(block.format).toBe("wav");
    expect(block.value).toBe(base64);
  });

  it("reports a bad path briefly, without echoing a huge argument", async () => {
    const hugePath = `/nonexistent/${"x".repeat(5000)}`;
    const error = await AudioBlock.fromFile(hugePath).catch((caught: unknown) => caught);
    expect(InvalidAudioError.isInstance(error)).toBe(true);
    expect((error as Error).message.length).toBeLessThan(250);
    expect((error as Error).message).toMatch(
      /cannot open the audio file "\/nonexistent\/x+\.\.\." \((ENAMETOOLONG|ENOENT)\)/,
    );
  });

  it("downloads from a URL (loopback allowed explicitly), and refuses it by default", async () => {
    const block = await AudioBlock.fromUrl(`${baseUrl}/clip`, { allowPrivateNetwork: true });
    expect(block.format).toBe("wav");
    await expect(AudioBlock.fromUrl(`${baseUrl}/clip`)).rejects.toBeInstanceOf(MediaDownloadError);
    await expect(AudioBlock.fromUrl(`${baseUrl}/text`, { allowPrivateNetwork: true })).rejects.toThrow(
      /could not be detected/,
    );
  });
});

describe("AudioUrlBlock", () => {
  it("resolves to raw base64 once per URL", async () => {
    const first = await new AudioUrlBlock(`${baseUrl}/clip`, { format: "wav" }).resolveBase64({
      allowPrivateNetwork: true,
    });
    const second = await new AudioUrlBlock(`${baseUrl}/clip`).resolveBase64({ allowPrivateNetwork: true });
    expect(first).toBe(wav.toString("base64"));
    expect(second).toBe(first);
    expect(hits).toBe(1);
  });

  it("needs an http(s) URL", () => {
    expect(() => new AudioUrlBlock("file:///tmp/a.wav")).toThrow(InvalidAudioError);
  });
});
