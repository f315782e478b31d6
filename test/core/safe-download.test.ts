import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadBytes, MediaDownloadError, type MediaDownloadFailure } from "../../src/core/index.js";

let server: http.Server;
let liar: net.Server;
let baseUrl: string;
let liarUrl: string;
const stalled: http.ServerResponse[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = request.url ?? "/";
    if (url === "/ok") response.end("payload");
    else if (url === "/big-declared") {
      response.writeHead(200, { "content-length": "5000" });
      response.end(Buffer.alloc(5000));
    } else if (url === "/big-chunked") {
      response.writeHead(200);
      for (let index = 0; index < 50; index += 1) response.write(Buffer.alloc(100));
      response.end();
    } else if (url === "/loop") response.writeHead(302, { location: "/loop" }).end();
    else if (url === "/to-ok") response.writeHead(301, { location: "/ok" }).end();
    else if (url === "/to-file") response.writeHead(302, { location: "file:///etc/passwd" }).end();
    else if (url === "/stall") stalled.push(response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Declares 10 bytes, then sends 4000: the lie must fail the download, not be read past.
  liar = net.createServer((socket) => {
    socket.once("data", () => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 10\r\nconnection: close\r\n\r\n");
      socket.end(Buffer.alloc(4000));
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => liar.listen(0, "127.0.0.1", resolve));
  liarUrl = `http://127.0.0.1:${(liar.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  for (const response of stalled) response.destroy();
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => liar.close(resolve));
});

async function failureOf(
  url: string,
  options: Parameters<typeof downloadBytes>[1],
): Promise<MediaDownloadFailure> {
  const error = await downloadBytes(url, options).then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!MediaDownloadError.isInstance(error))
    throw new Error(`expected a MediaDownloadError, got ${String(error)}`);
  return error.failure;
}

describe("downloadBytes", () => {
  const local = { allowPrivateNetwork: true, timeoutMs: 2000 };

  it("fetches a body within the limits", async () => {
    const download = await downloadBytes(`${baseUrl}/ok`, local);
    expect(download.bytes.toString()).toBe("payload");
    expect(download.finalUrl).toBe(`${baseUrl}/ok`);
  });

  it("refuses loopback, private and link-local addresses by default, also through DNS", async () => {
    expect(await failureOf(`${baseUrl}/ok`, {})).toBe("private-address");
    expect(await failureOf(`http://localhost:${new URL(baseUrl).port}/ok`, {})).toBe("private-address");
    expect(await failureOf("http://10.0.0.1/x", {})).toBe("private-address");
    expect(await failureOf("http://169.254.169.254/latest/meta-data", {})).toBe("private-address");
    expect(await failureOf("http://[::1]/x", {})).toBe("private-address");
    expect(await failureOf("http://[::ffff:127.0.0.1]/x", {})).toBe("private-address");
  });

  it("only fetches http and https", async () => {
    expect(await failureOf("file:///etc/passwd", local)).toBe("unsupported-scheme");
    expect(await failureOf("ftp://example.com/a", local)).toBe("unsupported-scheme");
    expect(await failureOf("not a url", local)).toBe("unsupported-scheme");
    expect(await failureOf(`${baseUrl}/to-file`, local)).toBe("unsupported-scheme");
  });

  it("enforces the byte cap on declared, chunked and lying bodies", async () => {
    expect(await failureOf(`${baseUrl}/big-declared`, { ...local, maxBytes: 1000 })).toBe("too-large");
    expect(await failureOf(`${baseUrl}/big-chunked`, { ...local, maxBytes: 1000 })).toBe("too-large");
  });

  it("rejects a body that overruns its declared Content-Length instead of reading on", async () => {
    const error = await downloadBytes(liarUrl, { ...local, maxBytes: 1000 }).catch(
      (caught: unknown) => caught,
    );
    expect((error as MediaDownloadError).failure).toBe("network");
    expect((error as Error).message).toMatch(/Parse Error/);
  });

  it("follows a few redirects and stops at the limit", async () => {
    expect((await downloadBytes(`${baseUrl}/to-ok`, local)).finalUrl).toBe(`${baseUrl}/ok`);
    expect(await failureOf(`${baseUrl}/loop`, { ...local, maxRedirects: 3 })).toBe("too-many-redirects");
  });

  it("times out on a server that never answers", async () => {
    expect(await failureOf(`${baseUrl}/stall`, { ...local, timeoutMs: 150 })).toBe("timeout");
  });

  it("reports HTTP errors with the status", async () => {
    const error = await downloadBytes(`${baseUrl}/missing`, local).catch((caught: unknown) => caught);
    expect((error as MediaDownloadError).failure).toBe("http-status");
    expect((error as Error).message).toBe(
      `Could not download ${baseUrl}/missing: the server answered HTTP 404.`,
    );
  });
});
