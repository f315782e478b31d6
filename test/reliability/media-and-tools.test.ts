// Bad media and tool calls (bad-inputs cases 15-18) as a sweep: hundreds of generated bad inputs
// through the public API, each one must end in a typed TesseraError (or a valid result), never another
// exception, never a call to a tool with arguments that fail its schema.
import http from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CBlock } from "../../src/core/cblock.js";
import { TesseraError } from "../../src/core/errors/tessera-error.js";
import { AudioBlock } from "../../src/core/media/audio-block.js";
import { ImageBlock } from "../../src/core/media/image-block.js";
import { makeImageBlock } from "../../src/core/media/make-image-block.js";
import { downloadBytes } from "../../src/core/media/safe-download.js";
import { ModelToolCall } from "../../src/core/model-tool-call.js";
import { tool } from "../../src/core/tool.js";
import { SeededRandom } from "../../src/reliability/seeded-random.js";
import { SimpleContext } from "../../src/stdlib/contexts/simple-context.js";
import { runToolCalls } from "../../src/stdlib/functional/run-tool-calls.js";
import { ScriptedBackend } from "../../src/testing/index.js";

type Outcome = "ok" | "typed" | "untyped";

async function outcomeOf(action: () => unknown): Promise<{ outcome: Outcome; detail: string }> {
  try {
    await action();
    return { outcome: "ok", detail: "" };
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { outcome: TesseraError.isInstance(error) ? "typed" : "untyped", detail };
  }
}

let png: Buffer;
beforeAll(async () => {
  png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } })
    .png()
    .toBuffer();
});

describe("case 15: 400 corrupted images and audio clips", () => {
  it("are accepted or refused with a typed error, never another exception", async () => {
    const random = new SeededRandom(15);
    const counts: Record<Outcome, number> = { ok: 0, typed: 0, untyped: 0 };
    let bombs = 0;
    const untyped: string[] = [];
    for (let index = 0; index < 400; index++) {
      const bytes = Buffer.from(png);
      const kind = index % 5;
      let input: string;
      if (kind === 0) {
        for (let flip = 0; flip < 4; flip++) bytes[random.integer(bytes.length)]! ^= 1 << random.integer(8);
        input = bytes.toString("base64");
      } else if (kind === 1) input = bytes.subarray(0, random.integer(bytes.length)).toString("base64");
      else if (kind === 2) {
        // IHDR width and height (bytes 16-23) set to extremes: a pixel bomb in a tiny file.
        const width = random.pick([0, 0x7fffffff, 0xffffffff, 100_000]);
        const height = random.pick([0, 0x7fffffff, 0xffffffff, 100_000]);
        bytes.writeUInt32BE(width, 16);
        bytes.writeUInt32BE(height, 20);
        input = bytes.toString("base64");
        if (width > 0 && height > 0) {
          const bomb = await outcomeOf(() => new ImageBlock(input));
          expect(bomb.outcome, `${width}x${height}: ${bomb.detail}`).toBe("typed");
          bombs++;
        }
      } else if (kind === 3) {
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n%";
        input = Array.from(
          { length: random.integer(200) },
          () => alphabet[random.integer(alphabet.length)],
        ).join("");
      } else {
        input = `data:${random.pick(["image/jpeg", "text/plain", "image/png", "application/x"])};base64,${bytes.toString("base64")}`;
      }
      const results = [
        await outcomeOf(() => new ImageBlock(input)),
        await outcomeOf(() => makeImageBlock(input)),
        await outcomeOf(() => new AudioBlock(input, { format: "wav" })),
      ];
      for (const result of results) {
        counts[result.outcome]++;
        if (result.outcome === "untyped" && untyped.length < 5) untyped.push(result.detail);
      }
    }
    expect(counts.untyped, untyped.join("\n")).toBe(0);
    expect(bombs).toBeGreaterThan(30);
    expect(counts.typed).toBeGreaterThan(300);
  });
});

describe("case 15: a PNG whose IHDR declares zero pixels", () => {
  // The PNG spec requires 1..2^31-1 for both sides; a zero side used to slip under the pixel cap.
  it("is refused like any other invalid PNG", async () => {
    const bytes = Buffer.from(png);
    bytes.writeUInt32BE(0, 16);
    bytes.writeUInt32BE(0xffffffff, 20);
    expect((await outcomeOf(() => new ImageBlock(bytes.toString("base64")))).outcome).toBe("typed");
  });
});

describe("case 16: media URLs", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((_request, response) => response.end(png));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/image.png`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const refused = [
    "file:///etc/passwd",
    "ftp://127.0.0.1/x.png",
    "gopher://127.0.0.1/x",
    "http://localhost/x.png",
    "http://127.0.0.2/x.png",
    "http://[::1]/x.png",
    "http://[::ffff:127.0.0.1]/x.png",
    "http://0.0.0.0/x.png",
    "http://10.0.0.1/x.png",
    "http://172.16.5.4/x.png",
    "http://192.168.1.1/x.png",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/x.png",
    "http://[fd00::1]/x.png",
    "http://2130706433/x.png",
    "http://0x7f000001/x.png",
  ];

  it("refuses non-http(s) schemes and private, loopback and link-local addresses unless allowed", async () => {
    for (const target of [...refused, url]) {
      const result = await outcomeOf(() => downloadBytes(target, { timeoutMs: 2000 }));
      expect(result.outcome, `${target}: ${result.detail}`).toBe("typed");
    }
  });

  it("downloads from its own loopback server only when allowed explicitly", async () => {
    const download = await downloadBytes(url, { allowPrivateNetwork: true });
    expect(download.bytes.equals(png)).toBe(true);
  });
});

describe("cases 17-18: tool calls the model gets wrong", () => {
  const calls: unknown[] = [];
  const weather = tool({
    name: "weather",
    description: "The weather in a city",
    parameters: z.object({ city: z.string().min(1), days: z.number().int().min(1).max(14) }),
    run: (args) => {
      calls.push(args);
      return `sunny in ${args.city}`;
    },
  });
  const valid = JSON.stringify({ city: "Paris", days: 3 });

  it("never runs a tool the model invented, and names the tools that exist", async () => {
    const backend = new ScriptedBackend({
      responses: [{ text: "", toolCalls: [new ModelToolCall("wether", weather as never, valid)] }],
    });
    const { thunk } = await backend.generateFromContext(new CBlock("Weather?"), new SimpleContext());
    await thunk.avalue();
    const result = await outcomeOf(() => runToolCalls(thunk, { tools: [weather] }));
    expect(result.outcome).toBe("typed");
    expect(result.detail).toContain("NoSuchToolError");
    expect(result.detail).toContain("weather");
    expect(calls).toHaveLength(0);
  });

  it("refuses every truncation and 200 mangled versions of the arguments before the tool runs", async () => {
    const random = new SeededRandom(18);
    const inputs: unknown[] = [];
    // Cut off by the token limit at every byte.
    for (let length = 0; length < valid.length; length++) inputs.push(valid.slice(0, length));
    for (let index = 0; index < 200; index++) {
      inputs.push(
        random.pick<unknown>([
          JSON.stringify({ city: random.pick(["", 7, null, ["Paris"], { name: "x" }]), days: 3 }),
          JSON.stringify({ city: "Paris", days: random.pick([0, 15, 2.5, "3", null, -1, 1e308]) }),
          JSON.stringify({ town: "Paris", days: 3 }),
          { city: "Paris" },
          random.pick([null, 42, "[]", "null", '"Paris"', '{"city":"Paris","days":3,', "\u0000"]),
        ]),
      );
    }
    const fields = new Set<string>();
    for (const args of inputs) {
      const result = await outcomeOf(() => new ModelToolCall("weather", weather as never, args).callFunc());
      expect(result.outcome, `${JSON.stringify(args)}: ${result.detail}`).toBe("typed");
      expect(result.detail).toContain("ToolArgumentsError");
      for (const field of ["city", "days"]) if (result.detail.includes(field)) fields.add(field);
    }
    // Schema failures name the field at fault.
    expect([...fields].sort()).toEqual(["city", "days"]);
    expect(calls).toHaveLength(0);
  });
});
