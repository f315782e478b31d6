import type { FastifyInstance } from "fastify";
import type { Backend } from "../../core/backend.js";
import { checkRequestedModel } from "../check-requested-model.js";
import { parseBody } from "../parse-body.js";
import { chatCompletionRequestSchema } from "../request-schemas.js";
import { chatRequestToBackendCall, outputLengthField } from "../request-to-backend-call.js";
import { chatCompletionBody } from "../response-shapes.js";
import { type ServeDependencies, serveCompletion } from "../serve-completion.js";

/** POST /v1/chat/completions: streamed or not, tools, response_format, logprobs and raw logits. */
export function registerChatCompletionsRoute(
  app: FastifyInstance,
  backend: Backend,
  dependencies: ServeDependencies,
): void {
  app.post("/v1/chat/completions", async (request, reply) => {
    const body = parseBody(chatCompletionRequestSchema, request.body);
    checkRequestedModel(body.model, dependencies.servedModels);
    const call = chatRequestToBackendCall(body, backend.capabilities.toolChoice);
    const toolsOffered = (call.options.tools?.length ?? 0) > 0;
    const logprobs = {
      topLogprobs: body.logprobs === true ? (body.top_logprobs ?? 0) : null,
      rawLogits: body.tessera_raw_logits_top_k != null,
    };
    await serveCompletion(
      reply,
      {
        route: "chat",
        outputField: outputLengthField(body),
        // A grammar the backend refuses (too large) was made from this field's schema.
        grammarField:
          body.response_format?.type === "json_schema"
            ? "response_format.json_schema.schema"
            : body.response_format?.type === "json_object"
              ? "response_format"
              : toolsOffered
                ? "tools"
                : null,
        stream: body.stream === true,
        includeUsage: body.stream_options?.include_usage === true,
        logprobs,
        start: async (signal) => {
          const result = await backend.generateFromContext(call.action, call.context, {
            ...call.options,
            signal,
          });
          return result.thunk;
        },
        body: (identity, thunk) => chatCompletionBody(identity, thunk, logprobs, toolsOffered),
        chunk: (identity, delta, extras, finishReason) => {
          const wireDelta: Record<string, unknown> = {};
          if (delta.first) wireDelta.role = "assistant";
          if (delta.text !== undefined) wireDelta.content = delta.text;
          if (delta.thinking !== undefined) wireDelta.reasoning_content = delta.thinking;
          if (delta.toolCalls !== undefined) wireDelta.tool_calls = delta.toolCalls;
          return {
            id: identity.id,
            object: "chat.completion.chunk",
            created: identity.created,
            model: identity.model,
            choices: [{ index: 0, delta: wireDelta, finish_reason: finishReason, logprobs: null, ...extras }],
          };
        },
      },
      dependencies,
    );
  });
}
