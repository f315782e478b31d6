// The HTTP client of the benchmark's server rows: node:http(s) on a keep-alive agent, and nothing else.
// Not fetch: Node's fetch puts WHATWG streams and undici's fetch layer between the socket and the
// reader, which cost about 0.3 ms of every served first token on this machine (median 0.82 ms against
// 0.49 ms to the HTTP floor server: `node benchmarks/http-client-cost.mjs`,
// benchmarks/results/http-client-cost.md). That time is the client's, yet it was counted as what the
// server adds; every server row pays it alike, so it hid the servers' own differences too.
// For the same reason a request takes the cheapest way node:http offers: options parsed once per URL, not
// a URL object per request, and its own listener on the caller's AbortSignal rather than http.request's
// `signal` option (which follows the request with Node's end-of-stream helper). Side by side with the
// client before that, 0.03-0.11 ms less per request to a server idle for 0-20 ms (docs/benchmarks.md,
// "Round eleven"); `node benchmarks/http-idle-cost.mjs` shows what is left over a bare node:http request.

import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import { redactedUrl } from "./redact-url-credentials.js";

/** What an error message keeps of a response body; the rest is not read. */
const maxTextBytes = 64 * 1024;
/** A server that ends a connection this soon after an answer on it, unannounced, ended it because of it. */
const closeAfterAnswerMs = 1000;
/** Unannounced closes after an answer, with no kept connection reused in between, before the switch. */
const closesBeforeFreshConnections = 2;
/**
 * Until a server has shown whether it keeps connections, a request waits (settle(), outside the timed
 * span) until the last answer's connection has closed, or this long after that answer's end: a request
 * written into a closing connection fails. A server that closes after answering does it within about a
 * millisecond on a quiet machine, but on a loaded one its process can wait tens of milliseconds for a
 * core: a fixed 10 ms lost a CI run to that. A server that keeps connections costs this once per origin
 * (its second request reuses the connection, and then settle() returns at once).
 */
const settleLimitMs = 250;
/** Parsed URLs kept: a benchmark sends to a few URLs, plus one per timed request (its timings' URL). */
const parsedUrlsKept = 32;

/** What a request to one URL needs, parsed once. */
interface ParsedUrl {
  secure: boolean;
  origin: string;
  options: { protocol: string; hostname: string; port: number; path: string; auth?: string };
}

export interface BenchHttpRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/** Per origin: how its server treated kept-alive connections so far. */
interface OriginConnections {
  /** A kept connection carried a second answer: the server keeps connections. */
  keeps: boolean;
  /** Unannounced closes right after an answer since a kept connection last carried another answer. */
  closesInARow: number;
  /** Set once: this origin's requests go on a new connection each. */
  fresh: boolean;
  /** When the last answer from this origin ended (performance.now()). */
  lastAnswerEnd: number;
  /** The connection that carried that answer, kept or not (null before an answer has ended). */
  lastSocket: Socket | null;
}

export interface BenchHttpClientOptions {
  /**
   * A new connection for every request (default false: kept-alive connections). For comparing servers
   * that keep connections with one that closes them after each answer, on equal terms.
   */
  newConnections?: boolean;
}

export class BenchHttpClient {
  // Idle sockets are dropped after 4 s, before the 5 s after which Node's server and llama-server's
  // cpp-httplib close them: a request written into a socket as its server closes it fails.
  readonly #http = new http.Agent({ keepAlive: true, timeout: 4000 });
  readonly #https = new https.Agent({ keepAlive: true, timeout: 4000 });
  // For servers that close a connection right after answering on it while their headers promised to keep
  // it (llama-server after a streamed answer: "Keep-Alive: timeout=5, max=100", then a close about a
  // millisecond later). A request sent in that millisecond went into the closing socket and failed with
  // ECONNRESET: run alone, every second llama-server run failed so. settle() waits out that millisecond
  // until the server has shown what it does; once it has closed twice right after answering, with no kept
  // connection reused in between, its requests go on a new connection each, which is what such a server
  // costs every client. A server that closes now and then (after N requests per connection) keeps its
  // connections. connectionNote() says which servers were treated so.
  readonly #httpFresh = new http.Agent({ keepAlive: false });
  readonly #httpsFresh = new https.Agent({ keepAlive: false });
  readonly #origins = new Map<string, OriginConnections>();
  /**
   * When the last answer read to its end on each watched socket ended (performance.now()); -Infinity
   * before one, and after an answer that announced the close. A socket serves one origin only.
   */
  readonly #answerEnds = new WeakMap<Socket, number>();
  /** Resolves when the socket closes (settle()). */
  readonly #closes = new WeakMap<Socket, Promise<void>>();
  /** Most recently used last (a Map keeps insertion order). */
  readonly #parsedUrls = new Map<string, ParsedUrl>();
  #closed = false;
  readonly #newConnections: boolean;

  constructor(options: BenchHttpClientOptions = {}) {
    this.#newConnections = options.newConnections === true;
  }

  /**
   * Sends the request and resolves with the response as soon as its head arrives; its body is read as
   * it comes (`for await` over the IncomingMessage). Redirects are not followed: a benchmark's URL
   * should name its server. A failed request is not sent again, since the server may have acted on it.
   */
  request(request: BenchHttpRequest): Promise<IncomingMessage> {
    let target: ParsedUrl;
    try {
      target = this.#parse(request.url);
    } catch (error) {
      return Promise.reject(error);
    }
    const { signal } = request;
    if (signal.aborted) return Promise.reject(abortErrorOf(signal));
    // A string, not a Buffer: node:http sends a string body in one piece with the headers.
    const { body } = request;
    const sentAt = performance.now();
    return new Promise((resolve, reject) => {
      const outgoing = (target.secure ? https : http).request(
        {
          ...target.options,
          method: request.method,
          agent: this.#agentFor(target),
          headers: {
            ...request.headers,
            ...(body !== undefined && { "content-length": String(Buffer.byteLength(body)) }),
          },
        },
        (response) => {
          this.#watchConnection(target.origin, outgoing.reusedSocket, response);
          resolve(response);
        },
      );
      // Aborted before its answer, the request fails with the AbortError; after, its body does (the
      // reader's loop throws). Until the request closes, which it does after its answer's end or a failure.
      const onAbort = () => outgoing.destroy(abortErrorOf(signal));
      signal.addEventListener("abort", onAbort, { once: true });
      outgoing.once("close", () => signal.removeEventListener("abort", onAbort));
      // `on`, not `once`: a socket reset mid-body can also reach the request after the response resolved
      // (then the body's reader sees it; this reject is a no-op).
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        if (signal.aborted) {
          reject(error);
          return;
        }
        const elapsed = Math.round(performance.now() - sentAt);
        const how = outgoing.reusedSocket
          ? ` after ${elapsed} ms on a kept-alive connection (the server closed it: it may have stopped, or closed it as idle just as it was reused)`
          : ` after ${elapsed} ms`;
        reject(
          new Error(
            `${request.method} ${redactedUrl(request.url)} failed${how}: ${error.code ?? error.message}`,
            {
              cause: error,
            },
          ),
        );
      });
      outgoing.end(body);
    });
  }

  /** `url` as node:http's options, from the kept ones when it was sent to lately. */
  #parse(url: string): ParsedUrl {
    let parsed = this.#parsedUrls.get(url);
    if (parsed !== undefined) {
      // Most recently used last, so the URLs sent to every run stay while one-off ones pass through.
      this.#parsedUrls.delete(url);
      this.#parsedUrls.set(url, parsed);
      return parsed;
    }
    const whatwg = new URL(url);
    const secure = whatwg.protocol === "https:";
    if (!secure && whatwg.protocol !== "http:") {
      throw new TypeError(`only http and https URLs can be benchmarked; got ${redactedUrl(url)}`);
    }
    parsed = {
      secure,
      origin: whatwg.origin,
      options: {
        protocol: whatwg.protocol,
        // An IPv6 literal's brackets are the URL's, not the address's.
        hostname: whatwg.hostname.replace(/^\[(.*)\]$/, "$1"),
        port: whatwg.port === "" ? (secure ? 443 : 80) : Number(whatwg.port),
        path: `${whatwg.pathname}${whatwg.search}`,
        // Credentials in the URL (a proxy's `https://user:pass@host/v1`) go out as Basic auth, as
        // http.request does with a URL; an explicit authorization header still wins.
        ...((whatwg.username !== "" || whatwg.password !== "") && { auth: credentialsOf(whatwg, url) }),
      },
    };
    this.#parsedUrls.set(url, parsed);
    if (this.#parsedUrls.size > parsedUrlsKept) {
      this.#parsedUrls.delete(this.#parsedUrls.keys().next().value!);
    }
    return parsed;
  }

  /**
   * "HTTP <status> from <url>", with the redirect's target when there is one: redirects are not followed
   * (a POST must not turn into a GET, a probe must not check another URL than the runs use).
   */
  static describeStatus(response: IncomingMessage, url: string): string {
    const location = response.headers.location;
    return `HTTP ${response.statusCode ?? 0} from ${redactedUrl(url)}${location === undefined ? "" : ` (Location: ${redactedUrl(location)})`}`;
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

  /**
   * Waits, when `url`'s server has not yet shown whether it keeps connections, until the connection of its
   * last answer has closed or `settleLimitMs` after that answer ended, so that a server closing the
   * connection has done so and the next request takes a new one. Call it before the timed span: it
   * returns at once for a server whose behaviour is known.
   */
  async settle(url: string): Promise<void> {
    if (this.#newConnections) return;
    const origin = this.#origins.get(new URL(url).origin);
    if (origin === undefined || origin.keeps || origin.fresh) return;
    const socket = origin.lastSocket;
    const wait = origin.lastAnswerEnd + settleLimitMs - performance.now();
    if (socket !== null && !socket.destroyed && wait > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.#closedOf(socket),
        new Promise((resolve) => {
          timer = setTimeout(resolve, wait);
        }),
      ]);
      clearTimeout(timer);
    }
    // Then a whole turn of the event loop, through its poll phase: on a loop held up past the close (a
    // loaded machine) the limit can be over before the server's FIN has been read, and the agent would
    // still hand out the closed socket. Two check phases have a poll phase between them.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  }

  /** One promise per socket, so settle() calls at once on one socket add one 'close' listener, not one each. */
  #closedOf(socket: Socket): Promise<void> {
    let closed = this.#closes.get(socket);
    if (closed === undefined) {
      closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      this.#closes.set(socket, closed);
    }
    return closed;
  }

  /** Whether requests to `origin` now go on a new connection each (it closed them right after answering). */
  freshConnectionsFor(origin: string): boolean {
    return this.#origins.get(origin)?.fresh === true;
  }

  /** For a benchmark's notes: what `origin`'s server did with kept connections; null when it kept them. */
  connectionNote(origin: string): string | null {
    return this.freshConnectionsFor(origin)
      ? "the server closed each connection right after answering on it, though its headers said keep-alive, so its requests opened a new connection each"
      : null;
  }

  /** A new connection per request for --new-connections and for servers that close theirs; else a kept one. */
  #agentFor(target: ParsedUrl): http.Agent {
    if (this.#newConnections || this.#origin(target.origin).fresh)
      return target.secure ? this.#httpsFresh : this.#httpFresh;
    return target.secure ? this.#https : this.#http;
  }

  #origin(key: string): OriginConnections {
    let origin = this.#origins.get(key);
    if (origin === undefined) {
      origin = {
        keeps: false,
        closesInARow: 0,
        fresh: false,
        lastAnswerEnd: Number.NEGATIVE_INFINITY,
        lastSocket: null,
      };
      this.#origins.set(key, origin);
    }
    return origin;
  }

  /**
   * Follows the connection under `response`. A server that ends it (FIN: the socket's 'end') within
   * `closeAfterAnswerMs` of an answer's end, without having said `Connection: close`, closed it after
   * answering; a reused connection that carries another answer shows that it keeps them. A socket this
   * client destroys (a body cut at 64 KiB, an abort) or the agent drops as idle (after 4 s) gets no 'end'
   * from the server in the window, so it never counts. One listener per socket, for its lifetime.
   */
  #watchConnection(originKey: string, reused: boolean, response: IncomingMessage): void {
    const origin = this.#origin(originKey);
    if (reused) {
      origin.keeps = true;
      origin.closesInARow = 0;
    }
    const socket = response.socket;
    response.once("end", () => {
      // An announced close is the agent's to handle: it never reuses such a connection. Read at the end,
      // not before the body: Node builds a response's headers object on its first read.
      const announced = /\bclose\b/i.test(String(response.headers.connection ?? ""));
      origin.lastAnswerEnd = performance.now();
      origin.lastSocket = socket;
      // After an announced close, the server's FIN is no news.
      if (socket !== null)
        this.#answerEnds.set(socket, announced ? Number.NEGATIVE_INFINITY : origin.lastAnswerEnd);
    });
    if (socket === null || origin.fresh || this.#answerEnds.has(socket)) return;
    this.#answerEnds.set(socket, Number.NEGATIVE_INFINITY);
    socket.once("end", () => {
      const endedAt = this.#answerEnds.get(socket)!;
      if (this.#closed || performance.now() - endedAt >= closeAfterAnswerMs) return;
      origin.closesInARow++;
      if (origin.closesInARow >= closesBeforeFreshConnections) origin.fresh = true;
    });
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

/** What node:http's `signal` option fails a request with: Node's AbortError, the signal's reason its cause. */
function abortErrorOf(signal: AbortSignal): Error {
  return Object.assign(new Error("The operation was aborted", { cause: signal.reason }), {
    name: "AbortError",
    code: "ABORT_ERR",
  });
}

/** "user:password", decoded, for node:http's `auth`; a malformed % escape is named, with the URL redacted. */
function credentialsOf(url: URL, given: string): string {
  try {
    return `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  } catch {
    throw new TypeError(`the user or password in ${redactedUrl(given)} has a malformed % escape`);
  }
}
