import type { FastifyInstance } from "fastify";
import type { Backend } from "../../core/backend.js";
import { CBlock } from "../../core/cblock.js";
import { SimpleContext } from "../../stdlib/contexts/simple-context.js";
import { checkRequestedModel } from "../check-requested-model.js";
import { parseBody } from "../parse-body.js";
import { completionRequestSchema } from "../request-schemas.js";
import { outputLengthField, samplingToModelOptions } from "../request-to-backend-call.js";
import { choiceExtras, textCompletionBody, type WireLogprob } from "../response-shapes.js";
import { type ServeDependencies, serveCompletion } from "../serve-completion.js";

/** POST /v1/completions: one prompt, continued as text (streamed or not). */
export function registerCompletionsRoute(
  app: FastifyInstance,
  backend: Backend,
  dependencies: ServeDependencies,
): void {
  app.post("/v1/completions", async (request, reply) => {
    const body = parseBody(completionRequestSchema, request.body);
    checkRequestedModel(body.model, dependencies.servedModels);
    const prompt = body.prompt;
    const modelOptions = samplingToModelOptions(body);
    // OpenAI's legacy completions continue the prompt as text: no chat template where the backend can
    // skip it (the local one). A backend without it answers as it can: OpenAIBackend sends a chat request,
    // so a tessera serve in front of another server still gets a templated chat turn from it.
    if (backend.capabilities.rawPrompt === true) Object.assign(modelOptions, { rawPrompt: true });
    const topLogprobs = body.logprobs != null && body.logprobs > 0 ? body.logprobs : null;
    if (topLogprobs !== null) modelOptions.logits = topLogprobs;
    const echo = body.echo === true ? prompt : "";
    // The legacy format's text_offset counts characters from the start of the returned text.
    let offset = echo.length;
    const legacy = (extras: Record<string, unknown>) => {
      const content = (extras.logprobs as { content?: WireLogprob[] } | null | undefined)?.content;
      if (content === undefined) return null;
      const offsets = content.map((step) => {
        const at = offset;
        offset += step.token.length;
        return at;
      });
      return {
        tokens: content.map((step) => step.token),
        token_logprobs: content.map((step) => step.logprob),
        top_logprobs: content.map((step) =>
          Object.fromEntries(
            step.top_logprobs.map((alternative) => [alternative.token, alternative.logprob]),
          ),
        ),
        text_offset: offsets,
      };
    };
    const logprobs = { topLogprobs, rawLogits: false };
    await serveCompletion(
      reply,
      {
        route: "completions",
        outputField: outputLengthField(body),
        grammarField: null,
        stream: body.stream === true,
        includeUsage: body.stream_options?.include_usage === true,
        logprobs,
        start: async (signal) => {
          const [thunk] = await backend.generateFromRaw([new CBlock(prompt)], new SimpleContext(), {
            modelOptions,
            signal,
          });
          return thunk!;
        },
        body: (identity, thunk) => {
          const completion = textCompletionBody(identity, thunk, echo);
          const [choice] = completion.choices as Array<Record<string, unknown>>;
          if (topLogprobs !== null) choice!.logprobs = legacy(choiceExtras(thunk, logprobs));
          return completion;
        },
        chunk: (identity, delta, extras, finishReason) => ({
          id: identity.id,
          object: "text_completion",
          created: identity.created,
          model: identity.model,
          choices: [
            {
              index: 0,
              text: (delta.first ? echo : "") + (delta.text ?? ""),
              finish_reason: finishReason,
              logprobs: topLogprobs === null ? null : legacy(extras),
            },
          ],
        }),
      },
      dependencies,
    );
  });
}
