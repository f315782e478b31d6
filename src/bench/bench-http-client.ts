// The HTTP client of the benchmark's server rows: node:http(s) on a keep-alive agent, and nothing else.
// Not fetch: Node's fetch puts WHATWG streams and undici's fetch layer between the socket and the
// reader, which cost about 0.3 ms of every served first token on this machine (median 0.82 ms against
// 0.49 ms to the HTTP floor server: `node benchmarks/http-client-cost.mjs`,
// benchmarks/results/http-client-cost.md). That time is the client's, yet it was counted as what the
// server adds; every server row pays it alike, so it hid the servers' own differences too.

import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";

/** What an error message keeps of a response body; the rest is not read. */
const maxTextBytes = 64 * 1024;
/** A server closing a connection this soon after an answer's end closes it after every answer. */
const closeAfterAnswerMs = 1000;

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
  // For servers that close a connection right after answering on it while their headers promised to keep
  // it (llama-server after a streamed answer: "Keep-Alive: timeout=5, max=100", then a close about a
  // millisecond later). A request sent in that millisecond goes into the closing socket and fails with
  // ECONNRESET: run alone, every second llama-server run failed so. Once a server has been seen doing it,
  // its requests go on a new connection each, which is what such a server costs every client.
  readonly #httpFresh = new http.Agent({ keepAlive: false });
  readonly #httpsFresh = new https.Agent({ keepAlive: false });
  /** Origins seen closing a connection within `closeAfterAnswerMs` of an answer's end. */
  readonly #closesAfterAnswers = new Set<string>();
  /** When the last answer read to its end on each socket ended (performance.now()). */
  readonly #answerEnds = new WeakMap<Socket, number>();
  #closed = false;

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
          agent: this.#closesAfterAnswers.has(url.origin)
            ? secure
              ? this.#httpsFresh
              : this.#httpFresh
            : secure
              ? this.#https
              : this.#http,
          headers: {
            ...request.headers,
            ...(body !== undefined && { "content-length": String(body.length) }),
          },
          signal: request.signal,
        },
        (response) => {
          this.#watchForCloseAfterAnswer(url.origin, response);
          resolve(response);
        },
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

  /** Whether requests to `origin` now go on a new connection each (it closed one right after answering). */
  freshConnectionsFor(origin: string): boolean {
    return this.#closesAfterAnswers.has(origin);
  }

  /**
   * Marks `origin` when the connection under `response` closes within `closeAfterAnswerMs` of an answer's
   * end. Only a body read to its end counts (one this client cut short closes its socket itself), and the
   * agent's own idle timeout (4 s) is far outside the window. One listener per socket, for its lifetime:
   * a kept-alive socket serves thousands of requests.
   */
  #watchForCloseAfterAnswer(origin: string, response: IncomingMessage): void {
    const socket = response.socket;
    if (socket === null || this.#closesAfterAnswers.has(origin)) return;
    if (!this.#answerEnds.has(socket)) {
      this.#answerEnds.set(socket, Number.NEGATIVE_INFINITY);
      socket.once("close", () => {
        const endedAt = this.#answerEnds.get(socket)!;
        if (!this.#closed && performance.now() - endedAt < closeAfterAnswerMs) {
          this.#closesAfterAnswers.add(origin);
        }
      });
    }
    response.once("end", () => this.#answerEnds.set(socket, performance.now()));
  }

  /** Closes the kept-alive sockets. */
  close(): void {
    this.#closed = true;
    this.#http.destroy();
    this.#https.destroy();
    this.#httpFresh.destroy();
    this.#httpsFresh.destroy();
  }
}
