import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import {
  contentChunkFromOpenAI,
  contentChunkToOpenAI,
  ImageChunk,
  ImageURLChunk,
  InvalidMessageError,
  TextChunk,
} from "../../src/messages/index.js";
import { captureError } from "../helpers/capture-error.js";

let png: Uint8Array;
beforeAll(async () => {
  png = new Uint8Array(
    await sharp({ create: { width: 2, height: 2, channels: 3, background: "blue" } })
      .png()
      .toBuffer(),
  );
});

describe("TextChunk", () => {
  it("serialises to an OpenAI text part and back", () => {
    const chunk = TextChunk.create("Hello, how can I help you?");
    expect(TextChunk.toOpenAI(chunk)).toEqual({ type: "text", text: "Hello, how can I help you?" });
    expect(TextChunk.fromOpenAI(TextChunk.toOpenAI(chunk))).toEqual(chunk);
  });

  it("rejects unknown keys in the typed schema with the key's name", () => {
    const error = captureError(() => TextChunk.schema.parse({ type: "text", text: "a", extra: 1 }));
    expect(String(error)).toContain("extra");
  });
});

describe("ImageChunk", () => {
  it("serialises PNG bytes as a PNG data URI and reads them back", () => {
    const chunk = ImageChunk.create(png);
    const wire = ImageChunk.toOpenAI(chunk);
    expect(wire).toEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}` },
    });
    expect(ImageChunk.fromOpenAI(wire)).toEqual(chunk);
  });

  it("accepts bare base64 without the data URI prefix", () => {
    const chunk = ImageChunk.fromOpenAI({
      type: "image_url",
      image_url: { url: Buffer.from(png).toString("base64") },
    });
    expect(Array.from(chunk.image)).toEqual(Array.from(png));
  });

  it("rejects bytes that are not a PNG", () => {
    const error = captureError(() => ImageChunk.create(new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4])));
    expect(InvalidMessageError.isInstance(error)).toBe(true);
    expect((error as InvalidMessageError).issues[0]?.path).toEqual(["image"]);
    expect((error as InvalidMessageError).message).toContain("PNG signature");
  });

  it("rejects invalid base64 and non-PNG data with the path of the url", () => {
    for (const url of [
      "data:image/png;base64,@@@not base64@@@",
      `data:image/png;base64,${btoa("GIF89a....")}`,
    ]) {
      const error = captureError(() => ImageChunk.fromOpenAI({ type: "image_url", image_url: { url } }));
      expect(InvalidMessageError.isInstance(error)).toBe(true);
      expect((error as InvalidMessageError).issues[0]?.path).toEqual(["image_url", "url"]);
    }
  });
});

describe("ImageURLChunk", () => {
  it("emits detail only when it is set", () => {
    expect(ImageURLChunk.toOpenAI(ImageURLChunk.create("https://example.com/photo.jpg"))).toEqual({
      type: "image_url",
      image_url: { url: "https://example.com/photo.jpg" },
    });
    expect(
      ImageURLChunk.toOpenAI(ImageURLChunk.create({ url: "https://example.com/photo.jpg", detail: "high" })),
    ).toEqual({ type: "image_url", image_url: { url: "https://example.com/photo.jpg", detail: "high" } });
  });

  it("gives the URL from either form", () => {
    expect(ImageURLChunk.getUrl(ImageURLChunk.create("https://a/b.png"))).toBe("https://a/b.png");
    expect(ImageURLChunk.getUrl(ImageURLChunk.create({ url: "https://a/c.png" }))).toBe("https://a/c.png");
  });

  it("round-trips the object form, with and without detail", () => {
    for (const imageUrl of [{ url: "https://a/b.png" }, { url: "https://a/b.png", detail: "low" }]) {
      const chunk = ImageURLChunk.create(imageUrl);
      expect(ImageURLChunk.fromOpenAI(ImageURLChunk.toOpenAI(chunk))).toEqual(chunk);
    }
  });

  it("reads the string form that some clients send", () => {
    expect(ImageURLChunk.fromOpenAI({ type: "image_url", image_url: "https://a/b.png" })).toEqual({
      type: "image_url",
      image_url: "https://a/b.png",
    });
  });
});

describe("content parts", () => {
  it("dispatch on type: image_url parts become ImageURLChunks", () => {
    expect(contentChunkFromOpenAI({ type: "text", text: "x" })).toEqual({ type: "text", text: "x" });
    expect(contentChunkFromOpenAI({ type: "image_url", image_url: { url: "https://a" } })).toEqual({
      type: "image_url",
      image_url: { url: "https://a" },
    });
    expect(contentChunkToOpenAI(ImageChunk.create(png)).type).toBe("image_url");
  });

  it("reject an unknown part type naming the allowed ones", () => {
    const error = captureError(() => contentChunkFromOpenAI({ type: "video", video: "x" }));
    expect(InvalidMessageError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("'text' | 'image_url'");
    expect((error as InvalidMessageError).issues[0]?.path).toEqual(["type"]);
  });
});

describe("image bombs", () => {
  it("refuses a PNG whose header declares more pixels than the cap, without decoding it", () => {
    const bomb = new Uint8Array(png);
    const header = new DataView(bomb.buffer);
    header.setUint32(16, 100_000);
    header.setUint32(20, 100_000);
    const error = captureError(() => ImageChunk.create(bomb));
    expect((error as Error).message).toContain("100000×100000 pixels exceeds");
    const fromWire = captureError(() =>
      ImageChunk.fromOpenAI({ type: "image_url", image_url: { url: Buffer.from(bomb).toString("base64") } }),
    );
    expect((fromWire as InvalidMessageError).issues[0]?.path).toEqual(["image_url", "url"]);
  });

  it("refuses base64 that would decode past the byte cap before decoding it", () => {
    const huge = "A".repeat(28 * 1024 * 1024);
    const error = captureError(() => ImageChunk.fromOpenAI({ type: "image_url", image_url: { url: huge } }));
    expect((error as Error).message).toContain("larger than");
  });
});
