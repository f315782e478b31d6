// The HTTP client of the benchmark's server rows: node:http(s) on a keep-alive agent, and nothing else.
// Not fetch: Node's fetch puts WHATWG streams and undici's fetch layer between the socket and the
// reader, which cost about 0.3 ms of every served first token on this machine (median 0.82 ms against
// 0.49 ms to the HTTP floor server: `node benchmarks/http-client-cost.mjs`,
// benchmarks/results/http-client-cost.md). That time is the client's, yet it was counted as what the
// server adds; every server row pays it alike, so it hid the servers' own differences too.

import http, { type IncomingMessage } from "node:http";
import https from "node:https";

/** What an error message keeps of a response body; the rest is not read. */
const maxTextBytes = 64 * 1024;

export interface BenchHttpRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export class BenchHttpClient {
  // Idle sockets are dropped after 4 s, before the 5 s after which Node's server and llama-server's
  // cpp-httplib close them: a request written into a socket as its server closes it fails.
  readonly #http = new http.Agent({ keepAlive: true, timeout: 4000 });
  readonly #https = new https.Agent({ keepAlive: true, timeout: 4000 });

  /**
   * Sends the request and resolves with the response as soon as its head arrives; its body is read as
   * it comes (`for await` over the IncomingMessage). Redirects are not followed: a benchmark's URL
   * should name its server. A failed request is not sent again, since the server may have acted on it.
   */
  request(request: BenchHttpRequest): Promise<IncomingMessage> {
    const url = new URL(request.url);
    const secure = url.protocol === "https:";
    if (!secure && url.protocol !== "http:") {
      return Promise.reject(new TypeError(`only http and https URLs can be benchmarked; got ${request.url}`));
    }
    const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
    const sentAt = performance.now();
    return new Promise((resolve, reject) => {
      const outgoing = (secure ? https : http).request(
        url,
        {
          method: request.method,
          agent: secure ? this.#https : this.#http,
          headers: {
            ...request.headers,
            ...(body !== undefined && { "content-length": String(body.length) }),
          },
          signal: request.signal,
        },
        resolve,
      );
      // `on`, not `once`: a socket reset mid-body can also reach the request after the response resolved
      // (then the body's reader sees it; this reject is a no-op).
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        if (request.signal.aborted) {
          reject(error);
          return;
        }
        const elapsed = Math.round(performance.now() - sentAt);
        const how = outgoing.reusedSocket
          ? ` after ${elapsed} ms on a kept-alive connection (the server closed it: it may have stopped, or closed it as idle just as it was reused)`
          : ` after ${elapsed} ms`;
        reject(
          new Error(`${request.method} ${request.url} failed${how}: ${error.code ?? error.message}`, {
            cause: error,
          }),
        );
      });
      outgoing.end(body);
    });
  }

  /**
   * The body of a response as text, up to its first 64 KiB (for error messages and small answers); a body
   * that fails part way gives what arrived.
   */
  static async text(response: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let bytes = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= maxTextBytes) {
          response.destroy();
          break;
        }
      }
    } catch {
      // A body cut off (a timeout, a reset) still says what it said so far.
    }
    return Buffer.concat(chunks).subarray(0, maxTextBytes).toString("utf8");
  }

  /** Closes the kept-alive sockets. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
