import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CBlock, ModelToolCall, NoSuchToolError, ToolArgumentsError, tool } from "../../src/core/index.js";
import { TemplateFormatter } from "../../src/formatting/index.js";
import {
  act,
  ChatContext,
  chat,
  check,
  GenerativeInputError,
  GenerativeOutputError,
  generative,
  Instruction,
  instruct,
  Message,
  Query,
  query,
  RepairTemplateStrategy,
  req,
  runToolCalls,
  SimpleContext,
  StreamingWithStrategyError,
  simpleValidate,
  startSession,
  Transform,
  transform,
  validate,
} from "../../src/stdlib/index.js";
import { contains, scripted } from "./helpers.js";

describe("act", () => {
  it("generates, waits, and returns the computed output with the new context", async () => {
    const backend = scripted(["hello there"]);
    const context = new ChatContext();
    const { output, context: next, samplingResult } = await act("hi", context, backend);
    expect(output.isComputed()).toBe(true);
    expect(output.value).toBe("hello there");
    expect(samplingResult).toBeNull();
    expect(next.asList().map(String)).toEqual(["hi", "hello there"]);
    expect(context.asList()).toEqual([]);
  });

  it("returns the uncomputed thunk with awaitResult: false, so the caller can stream", async () => {
    const backend = scripted([{ text: "one two three", chunks: ["one ", "two ", "three"] }]);
    const { output } = await act(new CBlock("count"), new SimpleContext(), backend, { awaitResult: false });
    expect(output.isComputed()).toBe(false);
    const deltas: string[] = [];
    for await (const delta of output) deltas.push(delta);
    expect(deltas.join("")).toBe("one two three");
    await expect(
      act("x", new SimpleContext(), backend, { awaitResult: false, requirements: ["be nice"] }),
    ).rejects.toBeInstanceOf(StreamingWithStrategyError);
  });

  it("samples with rejection (budget 2) when requirements are given without a strategy", async () => {
    const backend = scripted(["bad", "good", "unused"]);
    const result = await act("q", new SimpleContext(), backend, { requirements: [contains("good")] });
    expect(result.output.value).toBe("good");
    expect(result.samplingResult?.sampleGenerations).toHaveLength(2);
    // Failed attempts are kept in the sampling result, not in the context.
    expect(result.context.asList().map(String)).toEqual(["q", "good"]);
    const exhausted = await act("q", new SimpleContext(), scripted(["a", "b", "c"]), {
      requirements: [contains("zzz")],
    });
    expect(exhausted.samplingResult?.success).toBe(false);
    expect(exhausted.samplingResult?.sampleGenerations).toHaveLength(2);
  });

  it("returns structured output parsed by a zod format", async () => {
    const backend = scripted(['{"city":"Oslo","population":709000}']);
    const format = z.object({ city: z.string(), population: z.number() });
    const { output } = await act("Largest city in Norway?", new SimpleContext(), backend, { format });
    expect(output.parsedRepr).toEqual({ city: "Oslo", population: 709000 });
    expect(backend.calls[0]!.options.format).toBe(format);
  });
});

describe("instruct, chat, query, transform, validate", () => {
  it("instruct shows the requirements to the model and validates them", async () => {
    const backend = scripted(["no fruit", "an apple a day", "unused"]);
    const result = await instruct("Write a proverb about {{thing}}.", new SimpleContext(), backend, {
      requirements: [contains("apple")],
      userVariables: { thing: "fruit" },
      strategy: new RepairTemplateStrategy({ loopBudget: 3 }),
    });
    expect(result.output.value).toBe("an apple a day");
    const first = backend.calls[0]!.action as Instruction;
    expect(first).toBeInstanceOf(Instruction);
    const prompt = new TemplateFormatter("scripted").print(first);
    expect(prompt).toContain("Write a proverb about fruit.");
    expect(prompt).toContain("* mentions apple");
    expect((backend.calls[1]!.action as Instruction).repair).toContain("mentions apple");
  });

  it("chat sends a message and returns the reply as an assistant Message", async () => {
    const backend = scripted(["Hi! How can I help?", "Sure."]);
    const first = await chat("Hello", new ChatContext(), backend);
    expect(first.message).toBeInstanceOf(Message);
    expect(first.message.role).toBe("assistant");
    expect(first.message.content).toBe("Hi! How can I help?");
    const second = await chat("Tell me more", first.context, backend, { role: "user" });
    expect(second.message.content).toBe("Sure.");
    expect(backend.calls[1]!.view).toHaveLength(2);
    expect(second.context.asList()).toHaveLength(4);
  });

  it("query and transform act on their components", async () => {
    const backend = scripted(["blue", "SKY"]);
    const asked = await query("The sky is blue.", "What colour?", new SimpleContext(), backend);
    expect(asked.output.value).toBe("blue");
    expect(backend.calls[0]!.action).toBeInstanceOf(Query);
    await transform("sky", "Upper-case it.", new SimpleContext(), backend);
    expect(backend.calls[1]!.action).toBeInstanceOf(Transform);
  });

  it("validate checks the last output, or a given one, one result per requirement in order", async () => {
    const backend = scripted(["yes"]);
    const context = new SimpleContext()
      .add(new CBlock("q"))
      .add((await act("q", new SimpleContext(), scripted(["apple pie"]))).output);
    const results = await validate([contains("apple"), contains("pear"), "is about food"], context, backend);
    expect(results.map((result) => result.result)).toEqual([true, false, true]);
    const other = (await act("q", new SimpleContext(), scripted(["pear tart"]))).output;
    const againstOther = await validate([contains("pear")], context, backend, { output: other });
    expect(againstOther[0]!.result).toBe(true);
  });
});

describe("runToolCalls", () => {
  const ran: string[] = [];
  const weather = tool({
    name: "get_weather",
    description: "Weather for a city",
    parameters: z.object({ city: z.string() }),
    run: ({ city }) => {
      ran.push(city);
      return { city, celsius: 21 };
    },
  });
  const clock = tool({ name: "get_time", description: "Time", parameters: z.object({}), run: () => "12:00" });

  it("runs each requested call into a ToolMessage with the call's id", async () => {
    const backend = scripted([
      { text: "", toolCalls: [new ModelToolCall("get_weather", weather, { city: "Oslo" }, "call_1")] },
    ]);
    const { output } = await act("weather?", new ChatContext(), backend, { tools: [weather, clock] });
    const messages = await runToolCalls(output, { tools: [weather, clock] });
    expect(messages).toHaveLength(1);
    expect(messages[0]!.content).toBe('{"city":"Oslo","celsius":21}');
    expect(messages[0]!.toolCallId).toBe("call_1");
    expect(backend.calls[0]!.options.tools).toEqual([weather, clock]);
  });

  it("refuses an unknown tool before running anything, listing the tools offered", async () => {
    ran.length = 0;
    const backend = scripted([
      {
        text: "",
        toolCalls: [
          new ModelToolCall("get_weather", weather, { city: "Rome" }),
          new ModelToolCall("delete_files", weather, { city: "x" }),
        ],
      },
    ]);
    const { output } = await act("q", new ChatContext(), backend);
    const error = await runToolCalls(output, { tools: [weather, clock] }).catch((caught: unknown) => caught);
    expect(NoSuchToolError.isInstance(error)).toBe(true);
    expect((error as NoSuchToolError).message).toContain("Available tools: get_weather, get_time");
    expect(ran).toEqual([]);
    const asMessages = await runToolCalls(output, { tools: [weather], onError: "message" });
    expect(asMessages.map((message) => message.content)).toEqual([
      '{"city":"Rome","celsius":21}',
      expect.stringContaining('tool named "delete_files", which does not exist'),
    ]);
  });

  it("validates arguments with the tool's schema before running it", async () => {
    ran.length = 0;
    const backend = scripted([
      { text: "", toolCalls: [new ModelToolCall("get_weather", weather, '{"city": 5}')] },
      { text: "", toolCalls: [new ModelToolCall("get_weather", weather, '{"city": "Ly')] },
    ]);
    const bad = (await act("q", new ChatContext(), backend)).output;
    const error = await runToolCalls(bad).catch((caught: unknown) => caught);
    expect(ToolArgumentsError.isInstance(error)).toBe(true);
    expect((error as ToolArgumentsError).fields).toEqual(["city"]);
    const truncated = (await act("q", new ChatContext(), backend)).output;
    const [message] = await runToolCalls(truncated, { onError: "message" });
    expect(message!.content).toContain("not valid JSON");
    expect(ran).toEqual([]);
  });

  it("returns nothing for an output without tool calls", async () => {
    const { output } = await act("q", new ChatContext(), scripted(["plain"]));
    expect(await runToolCalls(output)).toEqual([]);
  });
});

describe("generative", () => {
  const classify = generative({
    name: "classify_sentiment",
    description: "Classify the sentiment of a review.",
    input: z.object({ review: z.string().min(1) }),
    output: z.enum(["positive", "negative"]),
  });

  it("renders a typed call and returns the validated result", async () => {
    const backend = scripted(['{"result":"positive"}']);
    const sentiment: "positive" | "negative" = await classify({ review: "Loved it" }, { backend });
    expect(sentiment).toBe("positive");
    const prompt = new TemplateFormatter("scripted").print(backend.calls[0]!.action);
    expect(prompt).toContain("function classify_sentiment(review)");
    expect(prompt).toContain('"review": "Loved it"');
    expect(prompt).toContain('"enum":["positive","negative"]');
    expect(classify.spec.name).toBe("classify_sentiment");
  });

  it("rejects bad arguments before calling the model", async () => {
    const backend = scripted([]);
    const error = await classify({ review: "" }, { backend }).catch((caught: unknown) => caught);
    expect(GenerativeInputError.isInstance(error)).toBe(true);
    expect((error as GenerativeInputError).fields).toEqual(["review"]);
    expect(backend.calls).toHaveLength(0);
  });

  it("reports an answer that does not fit the output schema, with the text", async () => {
    const error = await classify({ review: "meh" }, { backend: scripted(['{"result":"neutral"}']) }).catch(
      (caught: unknown) => caught,
    );
    expect(GenerativeOutputError.isInstance(error)).toBe(true);
    expect((error as GenerativeOutputError).outputText).toBe('{"result":"neutral"}');
    const notJson = await classify({ review: "meh" }, { backend: scripted(["positive!"]) }).catch(
      (caught: unknown) => caught,
    );
    expect(GenerativeOutputError.isInstance(notJson)).toBe(true);
  });

  it("shows its requirements in the prompt and validates them with the strategy", async () => {
    const positiveOnly = generative({
      name: "rate",
      description: "Rate a review from 1 to 5.",
      input: z.object({ review: z.string() }),
      output: z.number().int(),
      requirements: [
        req("Use the whole scale.", () => true),
        check(
          "Never rate 1.",
          simpleValidate((text) => !text.includes(":1}")),
        ),
      ],
    });
    const backend = scripted(['{"result":1}', '{"result":4}']);
    expect(await positiveOnly({ review: "ok" }, { backend })).toBe(4);
    const prompt = new TemplateFormatter("scripted").print(backend.calls[0]!.action);
    expect(prompt).toContain("* Use the whole scale.");
    expect(prompt).not.toContain("Never rate 1.");
  });

  it("runs in a session and extends its context", async () => {
    const session = await startSession({ backend: scripted(['{"result":"negative"}']) });
    expect(await classify({ review: "Awful" }, session)).toBe("negative");
    expect(session.context.asList()).toHaveLength(2);
  });
});
