import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { MediaDownloadError } from "../errors/media-download-error.js";

export interface DownloadOptions {
  /** Largest body accepted, in bytes (default 20 MiB). The download stops as soon as it is exceeded. */
  maxBytes?: number;
  /** Whole download, redirects included, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  /** Allow loopback, private and link-local addresses (off by default: a URL must not reach internal services). */
  allowPrivateNetwork?: boolean;
  signal?: AbortSignal;
}

export interface Download {
  bytes: Buffer;
  contentType: string | null;
  /** The URL the body came from, after redirects. */
  finalUrl: string;
}

export const defaultDownloadLimits = {
  maxBytes: 20 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 5,
} as const;

/**
 * Fetch an http(s) URL into memory with a byte cap, a timeout and a redirect limit. Every address a host
 * resolves to is checked (inside the socket's DNS lookup, so a rebinding DNS answer cannot slip past) and
 * private ranges are refused unless allowed.
 */
export async function downloadBytes(url: string, options: DownloadOptions = {}): Promise<Download> {
  const maxBytes = options.maxBytes ?? defaultDownloadLimits.maxBytes;
  const timeoutMs = options.timeoutMs ?? defaultDownloadLimits.timeoutMs;
  const maxRedirects = options.maxRedirects ?? defaultDownloadLimits.maxRedirects;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort("timeout"), timeoutMs);
  const onAbort = () => controller.abort("aborted");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    let current = url;
    for (let redirects = 0; ; redirects += 1) {
      const outcome = await requestOnce(
        current,
        url,
        maxBytes,
        options.allowPrivateNetwork ?? false,
        controller.signal,
      );
      if (outcome.kind === "body")
        return { bytes: outcome.bytes, contentType: outcome.contentType, finalUrl: current };
      if (redirects >= maxRedirects) {
        throw new MediaDownloadError(url, "too-many-redirects", `more than ${maxRedirects} redirects`);
      }
      current = new URL(outcome.location, current).toString();
    }
  } catch (error) {
    if (MediaDownloadError.isInstance(error)) throw error;
    if (controller.signal.aborted && controller.signal.reason === "timeout") {
      throw new MediaDownloadError(url, "timeout", `no complete response within ${timeoutMs} ms`, error);
    }
    if (controller.signal.aborted) {
      throw new MediaDownloadError(url, "network", "the download was aborted", error);
    }
    throw new MediaDownloadError(url, "network", (error as Error).message, error);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

type RequestOutcome =
  | { kind: "body"; bytes: Buffer; contentType: string | null }
  | { kind: "redirect"; location: string };

function requestOnce(
  target: string,
  originalUrl: string,
  maxBytes: number,
  allowPrivateNetwork: boolean,
  signal: AbortSignal,
): Promise<RequestOutcome> {
  let parsed: URL;
  try {
    parsed = new URL(target);
  } catch (error) {
    throw new MediaDownloadError(originalUrl, "unsupported-scheme", "it is not a valid URL", error);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new MediaDownloadError(
      originalUrl,
      "unsupported-scheme",
      `only http and https URLs are fetched, not ${parsed.protocol.replace(/:$/, "")}`,
    );
  }
  const literalHost = parsed.hostname.replace(/^\[|\]$/g, "");
  // Literal IPs skip DNS, so the socket's lookup never sees them; check them here.
  if (ipaddr.isValid(literalHost)) checkAddress(literalHost, originalUrl, allowPrivateNetwork);
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      try {
        for (const address of addresses) checkAddress(address.address, originalUrl, allowPrivateNetwork);
      } catch (refusal) {
        return callback(refusal as Error, "", 0);
      }
      if (lookupOptions.all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
  const client = parsed.protocol === "https:" ? https : http;
  return new Promise<RequestOutcome>((resolveOutcome, rejectOutcome) => {
    // The first outcome wins: destroying a response emits its own errors, which must not replace the reason.
    let settled = false;
    const resolve = (outcome: RequestOutcome) => {
      if (!settled) resolveOutcome(outcome);
      settled = true;
    };
    const reject = (error: unknown) => {
      if (!settled) rejectOutcome(error);
      settled = true;
    };
    const request = client.get(
      parsed,
      { lookup, signal, headers: { accept: "image/*, audio/*, */*" } },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.resume();
          resolve({ kind: "redirect", location: response.headers.location });
          return;
        }
        if (status < 200 || status >= 300) {
          response.resume();
          reject(new MediaDownloadError(originalUrl, "http-status", `the server answered HTTP ${status}`));
          return;
        }
        const declared = Number(response.headers["content-length"] ?? Number.NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          reject(tooLarge(originalUrl, maxBytes, `the server declared ${declared} bytes`));
          response.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        response.on("data", (chunk: Buffer) => {
          received += chunk.length;
          // Content-Length may lie: the cap is enforced on what actually arrives.
          if (received > maxBytes) {
            reject(tooLarge(originalUrl, maxBytes, "the body kept coming"));
            response.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () => {
          if (Number.isFinite(declared) && received !== declared) {
            reject(
              new MediaDownloadError(
                originalUrl,
                "network",
                `received ${received} bytes, the server declared ${declared}`,
              ),
            );
            return;
          }
          const contentType = response.headers["content-type"] ?? null;
          resolve({ kind: "body", bytes: Buffer.concat(chunks), contentType });
        });
        response.on("error", reject);
        response.on("aborted", () =>
          reject(new MediaDownloadError(originalUrl, "network", "the connection closed early")),
        );
      },
    );
    request.on("error", reject);
  });
}

function checkAddress(address: string, originalUrl: string, allowPrivateNetwork: boolean): void {
  if (allowPrivateNetwork) return;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range !== "unicast") {
    throw new MediaDownloadError(
      originalUrl,
      "private-address",
      `it resolves to ${address} (${range}), a non-public address; pass allowPrivateNetwork: true to allow it`,
    );
  }
}

function tooLarge(url: string, maxBytes: number, detail: string): MediaDownloadError {
  return new MediaDownloadError(
    url,
    "too-large",
    `${detail}, more than the ${maxBytes}-byte cap (raise maxBytes if it is expected)`,
  );
}
