import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (a Content-Length next to a
 * Transfer-Encoding, a bad header, headers too large, a request too slow). Fastify's default answer is a
 * bare `{"error":"Bad Request","message":"Client Error"}`; this one is OpenAI-shaped and says what to fix.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // A reset connection has no one to answer (Node's own advice for clientError).
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, message, code] = describe(error.code);
  const body = JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

function describe(nodeCode: string | undefined): [number, string, string] {
  switch (nodeCode) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "The request took too long to arrive. Send the whole request at once.", "request_timeout"];
    case "HPE_HEADER_OVERFLOW":
      return [431, "The request headers are too large. Send fewer or shorter headers.", "headers_too_large"];
    case "HPE_UNEXPECTED_CONTENT_LENGTH":
    case "HPE_INVALID_TRANSFER_ENCODING":
      return [
        400,
        "The request has both Content-Length and Transfer-Encoding headers (or an invalid Transfer-Encoding). " +
          "Send one of them: Content-Length for a body sent at once, Transfer-Encoding: chunked otherwise.",
        "malformed_http_request",
      ];
    default:
      return [
        400,
        "The server could not parse this HTTP/1.1 request (its request line, headers or body framing are " +
          "malformed). Send a well-formed request, as any HTTP client library does.",
        "malformed_http_request",
      ];
  }
}
