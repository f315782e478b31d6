// OpenAIBackend against the loopback fault server: what Mellea's backends do that ours must too (tools of
// earlier actions, generateLog, providerFields, promptTemplate*, a thunk as the action).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenAIBackend, ProviderFieldsTargetError } from "../../src/backends/openai/index.js";
import { CBlock } from "../../src/core/cblock.js";
import { Component } from "../../src/core/component.js";
import { ComputedModelOutputThunk } from "../../src/core/computed-model-output-thunk.js";
import { ModelOutputThunk } from "../../src/core/model-output-thunk.js";
import type { Span } from "../../src/core/span.js";
import type { TemplateRepresentation } from "../../src/core/template-representation.js";
import { Message } from "../../src/messages/components/message.js";
import { ChatContext } from "../../src/stdlib/contexts/chat-context.js";
import { chunk, type FaultServer, startFaultServer, streamEvents, usage } from "../helpers/fault-server.js";
import { weatherTool as weather } from "../helpers/weather-tool.js";

let server: FaultServer;
beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});

function streams(name: string, payloads: unknown[]): string {
  server.define(name, (_request, response) => streamEvents(response, payloads));
  return server.baseUrl(name);
}

const answer = (text: string) => [chunk({ content: text }, { finishReason: "stop" }), { choices: [], usage }];

/** A component rendered by an inline template, carrying whatever representation fields a test gives it. */
class Probe extends Component<string> {
  constructor(readonly extra: Partial<TemplateRepresentation> = {}) {
    super();
  }
  parts(): Span[] {
    return [];
  }
  formatForLlm(): TemplateRepresentation {
    return { obj: this, args: { word: "hi" }, template: "Say {{ word }}", ...this.extra };
  }
  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}

describe("OpenAIBackend and the seed", () => {
  it("offers the tools attached to earlier actions of the context", async () => {
    const baseUrl = streams("earlier-tools", answer("ok"));
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const context = new ChatContext().add(new Probe({ tools: { get_weather: weather } }));
    const { thunk } = await backend.generateFromContext(new CBlock("And now?"), context);
    await thunk.avalue();
    const body = server.hits.get("earlier-tools")![0]!.body;
    expect(body.tools).toEqual([weather.asJsonTool()]);
  });

  it("fills generateLog with the wire prompt, the options, the action and the raw response", async () => {
    const baseUrl = streams("generate-log", answer("logged"));
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const action = new CBlock("Log me");
    const { thunk } = await backend.generateFromContext(action, new ChatContext(), {
      modelOptions: { temperature: 0 },
    });
    await thunk.avalue();
    const log = thunk.generateLog!;
    expect(log).not.toBeNull();
    expect(log.prompt).toEqual(server.hits.get("generate-log")![0]!.body.messages);
    expect(log.backend).toBe("openai::m");
    expect(log.modelOptions).toMatchObject({ temperature: 0 });
    expect(log.action).toBe(action);
    expect(log.result).toBe(thunk);
    expect(log.modelOutput).toMatchObject({ choices: [{ message: { content: "logged" } }], usage });
    expect(log.extra).toMatchObject({ baseUrl, attempts: 1 });
  });

  it("sets promptTemplate and promptTemplateVariables from the template the action renders with", async () => {
    const baseUrl = streams("prompt-template", answer("hi"));
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const { thunk } = await backend.generateFromContext(new Probe(), new ChatContext());
    await thunk.avalue();
    expect(thunk.generation.promptTemplate).toBe("Say {{ word }}");
    expect(thunk.generation.promptTemplateVariables).toEqual({ word: "hi" });
    const plain = await backend.generateFromContext(new CBlock("no template"), new ChatContext());
    await plain.thunk.avalue();
    expect(plain.thunk.generation.promptTemplate).toBeNull();
  });

  it("takes an earlier output as the action: sent as the assistant turn, parsedRepr is the answer text", async () => {
    const baseUrl = streams("thunk-action", answer(" and more"));
    const backend = new OpenAIBackend({ model: "m", baseUrl });
    const action = ComputedModelOutputThunk.from(new ModelOutputThunk("A draft"));
    const { thunk, context } = await backend.generateFromContext(
      action,
      new ChatContext().add(new Message("user", "Go")),
    );
    expect(await thunk.avalue()).toBe(" and more");
    expect(thunk.parsedRepr).toBe(" and more");
    expect(context.asList().slice(-2)).toEqual([action, thunk]);
    expect(server.hits.get("thunk-action")![0]!.body.messages).toEqual([
      { role: "user", content: "Go" },
      { role: "assistant", content: "A draft" },
    ]);
  });

  describe("providerFields", () => {
    it("merges the openai target and the * wildcard into the wire message; known fields win", async () => {
      const baseUrl = streams("provider-fields", answer("ok"));
      const backend = new OpenAIBackend({ model: "m", baseUrl });
      const probe = new Probe({
        providerFields: {
          "*": { name: "everyone", cache_control: { type: "wildcard" } },
          openai: { cache_control: { type: "ephemeral" }, role: "system", content: "overridden?" },
          anthropic: { ignored: true },
        },
      });
      const { thunk } = await backend.generateFromContext(probe, new ChatContext());
      await thunk.avalue();
      const messages = server.hits.get("provider-fields")![0]!.body.messages as Array<
        Record<string, unknown>
      >;
      expect(messages).toEqual([
        { role: "user", content: "Say hi", name: "everyone", cache_control: { type: "ephemeral" } },
      ]);
    });

    it("applies the fields of a component earlier in the history too", async () => {
      const baseUrl = streams("provider-fields-history", answer("ok"));
      const backend = new OpenAIBackend({ model: "m", baseUrl });
      const context = new ChatContext()
        .add(new Probe({ providerFields: { openai: { name: "first" } } }))
        .add(new Message("assistant", "yes"));
      const { thunk } = await backend.generateFromContext(new CBlock("again"), context, {
        modelOptions: { systemPrompt: "Be brief" },
      });
      await thunk.avalue();
      const messages = server.hits.get("provider-fields-history")![0]!.body.messages;
      expect(messages).toEqual([
        { role: "system", content: "Be brief" },
        { role: "user", content: "Say hi", name: "first" },
        { role: "assistant", content: "yes" },
        { role: "user", content: "again" },
      ]);
    });

    it("refuses fields named only for another provider, before any request", async () => {
      const baseUrl = streams("provider-fields-miss", answer("never"));
      const backend = new OpenAIBackend({ model: "m", baseUrl });
      const probe = new Probe({ providerFields: { anthropic: { cache_control: { type: "ephemeral" } } } });
      const failure = await backend
        .generateFromContext(probe, new ChatContext())
        .catch((error: unknown) => error);
      expect(ProviderFieldsTargetError.isInstance(failure)).toBe(true);
      expect((failure as Error).message).toContain("anthropic");
      expect((failure as Error).message).toContain('"openai"');
      expect((failure as Error).message).toContain('"*"');
      expect(server.hits.get("provider-fields-miss") ?? []).toHaveLength(0);
    });
  });
});
