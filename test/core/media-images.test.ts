import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  CBlock,
  Component,
  clearImageUrlCache,
  getAudioFromComponent,
  getImagesFromComponent,
  ImageBlock,
  ImageUrlBlock,
  InvalidImageError,
  MediaDownloadError,
  makeImageBlock,
  type Span,
  type TemplateRepresentation,
} from "../../src/core/index.js";

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

let tinyPng: Buffer;
let tinyJpeg: Buffer;
let server: http.Server;
let baseUrl: string;
let hits = 0;

beforeAll(async () => {
  const raw = { raw: { width: 2, height: 2, channels: 3 as const } };
  tinyPng = await sharp(Buffer.alloc(12, 200), raw).png().toBuffer();
  tinyJpeg = await sharp(Buffer.alloc(12, 100), raw).jpeg().toBuffer();
  server = http.createServer((request, response) => {
    hits += 1;
    if (request.url === "/photo.jpg") {
      response.writeHead(200, { "content-type": "image/jpeg" });
      response.end(tinyJpeg);
    } else if (request.url === "/not-an-image") {
      response.end("hello");
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  clearImageUrlCache();
  hits = 0;
});

/** A PNG signature and IHDR declaring a huge canvas: a decompression bomb's header. */
function bombPngHeader(): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from(pngSignature).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(100_000, 16);
  header.writeUInt32BE(100_000, 20);
  header.writeUInt8(8, 24);
  header.writeUInt8(2, 25);
  return header;
}

describe("ImageBlock", () => {
  it("accepts base64 PNG with or without a data URI and without padding", () => {
    const base64 = tinyPng.toString("base64");
    expect(new ImageBlock(base64).value).toBe(base64);
    expect(new ImageBlock(`data:image/png;base64,${base64}`).value).toBe(base64);
    expect(new ImageBlock(base64.replace(/=+$/, "")).value).toBe(base64);
    expect(new ImageBlock(base64).dataUri).toBe(`data:image/png;base64,${base64}`);
    expect(ImageBlock.isValidBase64Png(base64)).toBe(true);
  });

  it("rejects non-PNG bytes, invalid base64, and oversized canvases", () => {
    expect(() => new ImageBlock(tinyJpeg.toString("base64"))).toThrow(InvalidImageError);
    expect(() => new ImageBlock(tinyJpeg.toString("base64"))).toThrow(/not a PNG/);
    expect(() => new ImageBlock("%%%not base64%%%")).toThrow(/not valid base64/);
    expect(() => new ImageBlock(bombPngHeader().toString("base64"))).toThrow(
      /exceeds the 50000000-pixel cap/,
    );
    expect(ImageBlock.isValidBase64Png("aGVsbG8=")).toBe(false);
    expect(() => new ImageBlock(42 as unknown as string)).toThrow(InvalidImageError);
    const block = new ImageBlock(tinyPng.toString("base64"));
    expect(() => {
      block.value = tinyJpeg.toString("base64");
    }).toThrow(/not a PNG/);
  });

  it("converts any image sharp reads into PNG with fromImage", async () => {
    const block = await ImageBlock.fromImage(tinyJpeg, { meta: { from: "jpeg" } });
    const decoded = Buffer.from(block.value, "base64");
    expect([...decoded.subarray(0, 8)]).toEqual(pngSignature);
    expect(await sharp(decoded).metadata()).toMatchObject({ format: "png", width: 2, height: 2 });
    expect(block.meta).toEqual({ from: "jpeg" });
  });

  it("refuses unreadable bytes and decompression bombs in fromImage", async () => {
    await expect(ImageBlock.fromImage(Buffer.from("plain text"))).rejects.toBeInstanceOf(InvalidImageError);
    await expect(ImageBlock.fromImage(bombPngHeader())).rejects.toThrow(/could not be read as an image/);
  });
});

describe("ImageUrlBlock and makeImageBlock", () => {
  it("refuses loopback unless private networks are allowed explicitly", async () => {
    const block = new ImageUrlBlock(`${baseUrl}/photo.jpg`);
    const error = await block.resolveBase64().catch((caught: unknown) => caught);
    expect(MediaDownloadError.isInstance(error)).toBe(true);
    expect((error as MediaDownloadError).failure).toBe("private-address");
    expect(hits).toBe(0);
  });

  it("downloads once per URL, converting to PNG, even through a new block", async () => {
    const first = await new ImageUrlBlock(`${baseUrl}/photo.jpg`).resolveBase64({
      allowPrivateNetwork: true,
    });
    const second = await new ImageUrlBlock(`${baseUrl}/photo.jpg`).resolveBase64({
      allowPrivateNetwork: true,
    });
    expect(second).toBe(first);
    expect(hits).toBe(1);
    expect(ImageBlock.isValidBase64Png(first)).toBe(true);
  });

  it("does not memoize failures", async () => {
    const block = new ImageUrlBlock(`${baseUrl}/not-an-image`);
    await expect(block.resolveBase64({ allowPrivateNetwork: true })).rejects.toBeInstanceOf(
      InvalidImageError,
    );
    await expect(block.resolveBase64({ allowPrivateNetwork: true })).rejects.toBeInstanceOf(
      InvalidImageError,
    );
    expect(hits).toBe(2);
  });

  it("needs an http(s) URL, also when the value is replaced", () => {
    const block = new ImageUrlBlock("https://example.com/a.png");
    expect(() => {
      block.value = "file:///etc/passwd";
    }).toThrow(InvalidImageError);
    expect(block.value).toBe("https://example.com/a.png");
    expect(() => new ImageUrlBlock("file:///etc/passwd")).toThrow(InvalidImageError);
    expect(() => new ImageUrlBlock("ftp://example.com/a.png")).toThrow(/http:\/\/ or https:\/\//);
  });

  it("dispatches on the source as the seed says", async () => {
    const base64 = tinyPng.toString("base64");
    expect(await makeImageBlock(`${baseUrl}/photo.jpg`)).toBeInstanceOf(ImageUrlBlock);
    expect(hits).toBe(0);
    const downloaded = await makeImageBlock(`${baseUrl}/photo.jpg`, {
      convertToBase64: true,
      allowPrivateNetwork: true,
    });
    expect(downloaded).toBeInstanceOf(ImageBlock);
    expect(await makeImageBlock(`data:image/png;base64,${base64}`)).toBeInstanceOf(ImageBlock);
    expect(await makeImageBlock(tinyJpeg)).toBeInstanceOf(ImageBlock);
    await expect(makeImageBlock("just some words")).rejects.toThrow(
      "Invalid image: the string is neither an http(s) URL nor a base64-encoded PNG.",
    );
    await expect(makeImageBlock(7 as unknown as string)).rejects.toBeInstanceOf(InvalidImageError);
  });
});

describe("getImagesFromComponent / getAudioFromComponent", () => {
  class Attachments extends Component<string> {
    formatted = 0;
    constructor(private readonly declared: Array<ImageBlock | ImageUrlBlock> | null) {
      super();
    }
    parts(): Span[] {
      return [];
    }
    formatForLlm(): TemplateRepresentation {
      this.formatted += 1;
      return { obj: this, args: {}, images: this.declared, audio: null };
    }
    protected parseOutput(): string {
      return "";
    }
  }

  it("uses the attribute when present, and falls back to the representation only when it is absent", () => {
    const image = new ImageBlock(tinyPng.toString("base64"));
    const absent = new Attachments([image]);
    expect(getImagesFromComponent(absent)).toEqual([image]);
    expect(absent.formatted).toBe(1);

    const explicitNone = new Attachments([image]);
    explicitNone.images = null;
    expect(getImagesFromComponent(explicitNone)).toBeNull();
    explicitNone.images = [];
    expect(getImagesFromComponent(explicitNone)).toBeNull();
    expect(explicitNone.formatted).toBe(0);

    const own = new Attachments(null);
    own.images = [image];
    expect(getImagesFromComponent(own)).toEqual([image]);
    expect(getImagesFromComponent(new Attachments([]))).toBeNull();
    expect(getAudioFromComponent(new Attachments(null))).toBeNull();
  });

  it("returns null for components that format to a plain string", () => {
    class Plain extends Component<string> {
      parts(): Span[] {
        return [new CBlock("x")];
      }
      formatForLlm(): string {
        return "plain";
      }
      protected parseOutput(): string {
        return "";
      }
    }
    expect(getImagesFromComponent(new Plain())).toBeNull();
  });
});
