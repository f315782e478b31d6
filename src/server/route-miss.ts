import type { FastifyInstance, HTTPMethods } from "fastify";
import type { ErrorResponse } from "./openai-error-response.js";

const methods: readonly HTTPMethods[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * The answer to a request no route takes: 405 with an Allow header when the path exists under another
 * method (a GET on /v1/chat/completions, which takes POST), else 404.
 */
export function routeMiss(app: FastifyInstance, method: string, url: string): ErrorResponse {
  const path = url.split("?")[0] ?? url;
  const allowed = methods.filter((candidate) => app.hasRoute({ method: candidate, url: path }));
  if (allowed.length > 0) {
    const allow = allowed.join(", ");
    const how = allowed.includes("POST") ? "POST a JSON body to it" : `use ${allow}`;
    return {
      status: 405,
      headers: { allow },
      body: {
        error: {
          message: `${path} does not take ${method} requests: ${how}.`,
          type: "invalid_request_error",
          param: null,
          code: "method_not_allowed",
        },
      },
    };
  }
  return {
    status: 404,
    headers: {},
    body: {
      error: {
        message: `There is no ${path} here. This server answers /v1/chat/completions, /v1/completions, /v1/models, /health and /metrics.`,
        type: "invalid_request_error",
        param: null,
        code: "not_found",
      },
    },
  };
}
