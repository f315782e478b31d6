// The HTTP client of the benchmark's server rows: node:http(s) on a keep-alive agent, and nothing else.
// Not fetch: Node's fetch puts WHATWG streams and undici's fetch layer between the socket and the
// reader, which cost about 0.5 ms of every served first token on this machine (median 0.95 ms against
// 0.46 ms to the HTTP floor server, `node benchmarks/http-client-cost.mjs`). That time is the
// client's, yet it was counted as what the server adds; every server row pays it alike, so it hid the
// servers' own differences too.

import http, { type IncomingMessage } from "node:http";
import https from "node:https";

/** Errors a request can meet on a kept-alive socket that the server closed while it sat idle. */
const staleSocketCodes = new Set(["ECONNRESET", "EPIPE"]);

export interface BenchHttpRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export class BenchHttpClient {
  // Idle sockets are dropped after 4 s, before the 5 s after which Node's server and llama-server's
  // cpp-httplib close them: a request written into a socket as its server closes it fails with ECONNRESET.
  readonly #http = new http.Agent({ keepAlive: true, timeout: 4000 });
  readonly #https = new https.Agent({ keepAlive: true, timeout: 4000 });

  /**
   * Sends the request and resolves with the response as soon as its head arrives; its body is read as
   * it comes (`for await` over the IncomingMessage). A request whose kept-alive socket turns out to be
   * closed before any response is sent once more on a new one: the server never saw it.
   */
  async request(request: BenchHttpRequest): Promise<IncomingMessage> {
    try {
      return await this.#send(request);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return this.#send(request);
    }
  }

  /** The whole body of a response, as text (for error messages and small JSON answers). */
  static async text(response: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }

  /** Closes the kept-alive sockets. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  #send(request: BenchHttpRequest): Promise<IncomingMessage> {
    const url = new URL(request.url);
    const secure = url.protocol === "https:";
    if (!secure && url.protocol !== "http:")
      throw new TypeError(`only http and https URLs can be benchmarked; got ${request.url}`);
    const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
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
      // `on`, not `once`: a socket reset mid-body can also reach the request after the response resolved.
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        const stale = outgoing.reusedSocket && error.code !== undefined && staleSocketCodes.has(error.code);
        reject(stale ? new StaleSocketError(error) : error);
      });
      outgoing.end(body);
    });
  }
}

/** A kept-alive socket that was closed under a request, before any response: safe to send again. */
class StaleSocketError extends Error {
  constructor(cause: Error) {
    super(`the kept-alive connection was closed before the request reached the server: ${cause.message}`, {
      cause,
    });
  }
}
