// SOFAISamplingStrategy: control flow on scripted S1/S2 backends, and on the real stack with S1 the local
// tiny model and S2 tessera serve on 127.0.0.1 through OpenAIBackend.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlamaCppBackend } from "../../src/backends/llamacpp/llama-cpp-backend.js";
import { OpenAIBackend } from "../../src/backends/openai/index.js";
import { CBlock, HookRegistry } from "../../src/core/index.js";
import { Message } from "../../src/messages/components/message.js";
import { startTesseraServer, type TesseraServer } from "../../src/server/index.js";
import {
  ChatContext,
  ChatContextRequiredError,
  req,
  SimpleContext,
  SOFAISamplingStrategy,
  StandardRequirement,
  simpleValidate,
} from "../../src/stdlib/index.js";
import { contains, scripted } from "../stdlib/helpers.js";

const contentOf = (action: unknown) =>
  action instanceof Message ? action.content : (action as CBlock).value;

describe("SOFAISamplingStrategy (scripted)", () => {
  it("has Mellea's defaults and needs a chat context", async () => {
    const s1 = scripted(["x"]);
    const strategy = new SOFAISamplingStrategy({ s1SolverBackend: s1, s2SolverBackend: s1 });
    expect(strategy).toMatchObject({
      loopBudget: 3,
      s2SolverMode: "fresh_start",
      feedbackStrategy: "simple",
    });
    await expect(strategy.sample(new CBlock("Q"), new SimpleContext(), s1, [])).rejects.toThrow(
      ChatContextRequiredError,
    );
  });

  it("repairs S1 with a user turn naming the failures' reasons, and returns S1's first pass", async () => {
    const s1 = scripted(["no number here", "it is 42"]);
    const s2 = scripted([]);
    const result = await new SOFAISamplingStrategy({ s1SolverBackend: s1, s2SolverBackend: s2 }).sample(
      new CBlock("Q"),
      new ChatContext(),
      s1,
      [contains("42")],
    );
    expect(result.success).toBe(true);
    expect(result.result.value).toBe("it is 42");
    expect(contentOf(s1.calls[1]!.action)).toBe(
      'The previous attempt failed. Please fix the following issues:\n* "42" is missing',
    );
    // The repair turn follows S1's first answer in the same chat.
    expect(s1.calls[1]!.view!.map(String)).toEqual(["Q", "no number here"]);
    expect(s2.calls).toHaveLength(0);
  });

  it("escalates to S2 after two identical failures; fresh_start sends S2 the original request alone", async () => {
    const s1 = scripted(["a", "b", "c"]);
    const s2 = scripted(["S2 says 42"]);
    const result = await new SOFAISamplingStrategy({ s1SolverBackend: s1, s2SolverBackend: s2 }).sample(
      new CBlock("Q"),
      new ChatContext(),
      s1,
      [contains("42")],
    );
    expect(s1.calls).toHaveLength(2);
    expect(contentOf(s2.calls[0]!.action)).toBe("Q");
    expect(s2.calls[0]!.view).toEqual([]);
    expect(result.success).toBe(true);
    expect(result.sampleGenerations.map((thunk) => thunk.value)).toEqual(["a", "b", "S2 says 42"]);
  });

  it("continue_chat gives S2 S1's whole chat; best_attempt the best attempt and its issues", async () => {
    const failing = [contains("42"), contains("yes")];
    const s1 = () => scripted(["yes", "no", "maybe"]);
    const chat = scripted(["S2"]);
    await new SOFAISamplingStrategy({
      s1SolverBackend: s1(),
      s2SolverBackend: chat,
      s2SolverMode: "continue_chat",
    }).sample(new CBlock("Q"), new ChatContext(), scripted([]), failing);
    expect(chat.calls[0]!.view!.map(String)).toContain("maybe");
    const best = scripted(["S2"]);
    const result = await new SOFAISamplingStrategy({
      s1SolverBackend: s1(),
      s2SolverBackend: best,
      s2SolverMode: "best_attempt",
    }).sample(new CBlock("Q"), new ChatContext(), scripted([]), failing);
    expect(contentOf(best.calls[0]!.action)).toBe(
      "Original task:\nQ\n\nPrevious attempts were made to solve this problem. The best attempt (out of 3 " +
        'attempts) was:\n\nyes\n\nHowever, this attempt had the following issues:\n  - "42" is missing\n\n' +
        "Please improve upon the best attempt above to fully satisfy all requirements.",
    );
    expect(best.calls[0]!.view).toEqual([]);
    expect(result.success).toBe(false);
    expect(result.resultIndex).toBe(3);
  });

  it("a judge backend judges requirements without a validation function, with the first-error prompt", async () => {
    const judge = scripted(["No\n<feedback>The first mistake is: no greeting.</feedback>", "Yes"]);
    const s1 = scripted(["hey", "hello"]);
    const result = await new SOFAISamplingStrategy({
      s1SolverBackend: s1,
      s2SolverBackend: scripted([]),
      judgeBackend: judge,
      feedbackStrategy: "first_error",
    }).sample(new CBlock("Greet me"), new ChatContext(), scripted([]), [
      new StandardRequirement("says hello"),
    ]);
    expect(contentOf(judge.calls[0]!.action)).toMatch(
      /^Does the following output satisfy this requirement\?/,
    );
    expect(contentOf(judge.calls[0]!.action)).toMatch(/Identify and report only the FIRST mistake/);
    expect(result.sampleValidations[0]![0]![1].reason).toBe("The first mistake is: no greeting.");
    expect(contentOf(s1.calls[1]!.action)).toMatch(/\* The first mistake is: no greeting\.$/);
    expect(result.success).toBe(true);
  });
});

describe("SOFAI with S1 local and S2 tessera serve on 127.0.0.1", () => {
  let local: LlamaCppBackend;
  let server: TesseraServer;

  beforeAll(async () => {
    local = await LlamaCppBackend.create({ threads: 1, sequences: 2, contextSize: 512 });
    server = await startTesseraServer({ backend: local, port: 0, queue: 4 });
  });
  afterAll(async () => {
    await server?.close();
    await local?.dispose();
  });

  it("runs S1 locally within its budget, then S2 once over HTTP, whose answer is the result", async () => {
    const remote = new OpenAIBackend({
      baseUrl: `${server.url}/v1`,
      apiKey: "none",
      model: "tiny",
      hooks: new HookRegistry(),
    });
    const impossible = req(
      "contains zebra-unicorn",
      simpleValidate((text) => text.includes("zebra-unicorn")),
    );
    const result = await new SOFAISamplingStrategy({
      s1SolverBackend: local,
      s2SolverBackend: remote,
      s2SolverMode: "best_attempt",
    }).sample(new CBlock("Name an animal."), new ChatContext(), local, [impossible], {
      modelOptions: { maxNewTokens: 6, temperature: 1, seed: 2 },
    });
    // The same reason every time: S1 stops after two attempts (no improvement), then S2 answers once.
    expect(result.sampleGenerations).toHaveLength(3);
    expect(result.sampleGenerations.map((thunk) => thunk.generation.provider)).toEqual([
      "llama.cpp",
      "llama.cpp",
      "openai",
    ]);
    expect(result.resultIndex).toBe(2);
    expect(result.success).toBe(false);
  });
});
