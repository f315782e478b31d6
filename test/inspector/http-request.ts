// Real HTTP to the inspector on 127.0.0.1 through node:http, which (unlike fetch) lets a test send a
// foreign Host header, as a DNS-rebinding page would.
import { request } from "node:http";

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function httpRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const outgoing = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        headers: {
          host: `127.0.0.1:${port}`,
          ...(body !== undefined && { "content-type": "application/json" }),
          ...options.headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}
