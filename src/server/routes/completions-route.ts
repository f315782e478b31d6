import type { FastifyInstance } from "fastify";
import type { Backend } from "../../core/backend.js";
import { CBlock } from "../../core/cblock.js";
import { SimpleContext } from "../../stdlib/contexts/simple-context.js";
import { parseBody } from "../parse-body.js";
import { completionRequestSchema } from "../request-schemas.js";
import { samplingToModelOptions } from "../request-to-generation.js";
import { textCompletionBody } from "../response-shapes.js";
import { type ServeDependencies, serveGeneration } from "../serve-generation.js";

/** POST /v1/completions: one prompt, continued as text (streamed or not). */
export function registerCompletionsRoute(
  app: FastifyInstance,
  backend: Backend,
  dependencies: ServeDependencies,
): void {
  app.post("/v1/completions", async (request, reply) => {
    const body = parseBody(completionRequestSchema, request.body);
    const prompt = typeof body.prompt === "string" ? body.prompt : body.prompt[0]!;
    const modelOptions = samplingToModelOptions(body);
    if (body.logprobs != null && body.logprobs > 0) modelOptions.logits = body.logprobs;
    const echo = body.echo === true ? prompt : "";
    await serveGeneration(
      reply,
      {
        route: "completions",
        stream: body.stream === true,
        includeUsage: body.stream_options?.include_usage === true,
        logprobs: { topLogprobs: null, rawLogits: false },
        toolsOffered: false,
        start: async (signal) => {
          const [thunk] = await backend.generateFromRaw([new CBlock(prompt)], new SimpleContext(), {
            modelOptions,
            signal,
          });
          return thunk!;
        },
        body: (identity, thunk) => textCompletionBody(identity, thunk, echo),
        chunk: (identity, delta, _extras, finishReason) => ({
          id: identity.id,
          object: "text_completion",
          created: identity.created,
          model: identity.model,
          choices: [
            {
              index: 0,
              text: (delta.first ? echo : "") + (delta.text ?? ""),
              finish_reason: finishReason,
              logprobs: null,
            },
          ],
        }),
      },
      dependencies,
    );
  });
}
