// Who may talk to the live inspector: only pages it served itself, on its own address, holding the
// per-run token. The Host check stops DNS rebinding (a foreign name resolved to 127.0.0.1 sends its own
// Host); the Origin and Sec-Fetch-Site checks stop cross-site requests from other pages in the browser;
// the token stops other local users and processes that guess the port.
import { timingSafeEqual } from "node:crypto";

export interface GuardRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly query: unknown;
}

export interface GuardRefusal {
  readonly status: 401 | 403;
  readonly message: string;
}

function header(request: GuardRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function guardRequest(request: GuardRequest, port: number, token: string): GuardRefusal | undefined {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  const host = header(request, "host");
  if (host === undefined || !hosts.includes(host.toLowerCase())) {
    return {
      status: 403,
      message: `Host "${host ?? ""}" is not this inspector's; open http://127.0.0.1:${port}/`,
    };
  }
  const origin = header(request, "origin");
  if (origin !== undefined && !hosts.some((own) => origin.toLowerCase() === `http://${own}`)) {
    return { status: 403, message: `cross-site request from ${origin} refused` };
  }
  if (header(request, "sec-fetch-site") === "cross-site") {
    return { status: 403, message: "cross-site request refused" };
  }
  const authorization = header(request, "authorization");
  const query = request.query as { token?: unknown } | undefined;
  const given =
    authorization?.startsWith("Bearer ") === true
      ? authorization.slice("Bearer ".length)
      : (header(request, "x-tessera-token") ?? (typeof query?.token === "string" ? query.token : undefined));
  if (given === undefined || given === "") {
    return {
      status: 401,
      message: "the token is missing: use the URL that `tessera inspect --serve` printed",
    };
  }
  if (!sameToken(given, token)) {
    return { status: 403, message: "wrong token: use the URL that `tessera inspect --serve` printed" };
  }
  return undefined;
}
