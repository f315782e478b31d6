import { describe, expect, it } from "vitest";
import { z } from "zod";
import { CBlock, ModelOutputThunk, ValidationResult } from "../../src/core/index.js";
import { TemplateFormatter } from "../../src/formatting/index.js";
import {
  ChatContext,
  check,
  isRequirement,
  RequirementJudge,
  readJudgeAnswer,
  req,
  reqify,
  SimpleContext,
  StandardRequirement,
  schemaRequirement,
  simpleValidate,
  ValidationFunctionResultError,
} from "../../src/stdlib/index.js";
import { scripted } from "./helpers.js";

const withOutput = (text: string) =>
  new SimpleContext().add(new CBlock("question")).add(new ModelOutputThunk(text));

describe("readJudgeAnswer", () => {
  it.each([
    ["yes", true, null],
    ["  YES\n", true, null],
    ["**Yes**", true, null],
    ['"No."', false, null],
    ["no", false, null],
    ["Yes, it is under ten words.", true, "Yes, it is under ten words."],
    ["No - it mentions cats twice.", false, "No - it mentions cats twice."],
    ["True", true, null],
  ])("reads %j as passed=%s", (answer, passed, reason) => {
    expect(readJudgeAnswer(answer)).toEqual({ passed, reason });
  });

  it("fails answers that say neither, naming the answer", () => {
    const verdict = readJudgeAnswer("Maybe, hard to tell");
    expect(verdict.passed).toBe(false);
    expect(verdict.reason).toContain("neither yes nor no");
    expect(verdict.reason).toContain("Maybe, hard to tell");
    expect(readJudgeAnswer("").passed).toBe(false);
    expect(readJudgeAnswer("yesterday it was fine").passed).toBe(false);
  });
});

describe("StandardRequirement", () => {
  it("asks the model as judge, with the output and the description in the prompt", async () => {
    const backend = scripted(["Yes, it is short enough."]);
    const requirement = req("The answer is short.");
    const result = await requirement.validate(backend, withOutput("Paris."));
    expect(result.result).toBe(true);
    expect(result.reason).toBe("Yes, it is short enough.");
    expect(result.thunk?.value).toBe("Yes, it is short enough.");
    const judge = backend.calls[0]!.action as RequirementJudge;
    expect(judge).toBeInstanceOf(RequirementJudge);
    const prompt = new TemplateFormatter("scripted").print(judge);
    expect(prompt).toContain("Paris.");
    expect(prompt).toContain("The answer is short.");
    expect(prompt).toContain('Answer "yes" or "no"');
    expect(backend.calls[0]!.options.modelOptions.maxNewTokens).toBe(64);
  });

  it("lets the caller's model options override the judge's defaults", async () => {
    const backend = scripted(["no"]);
    const result = await req("x").validate(backend, withOutput("y"), { modelOptions: { maxNewTokens: 5 } });
    expect(result.result).toBe(false);
    expect(backend.calls[0]!.options.modelOptions.maxNewTokens).toBe(5);
  });

  it("fails without calling the model when there is no output to judge", async () => {
    const backend = scripted([]);
    const result = await req("anything").validate(
      backend,
      new ChatContext().add(new CBlock("just a question")),
    );
    expect(result.result).toBe(false);
    expect(result.reason).toContain("no output");
    expect(backend.calls).toHaveLength(0);
  });

  it("uses a validation function when given: booleans, pairs and ValidationResults", async () => {
    const backend = scripted([]);
    expect((await req("a", () => true).validate(backend, withOutput("x"))).result).toBe(true);
    const pair = await req("b", () => [false, "too long"] as const).validate(backend, withOutput("x"));
    expect([pair.result, pair.reason]).toEqual([false, "too long"]);
    const full = await req("c", async () => new ValidationResult(true, { score: 0.9 })).validate(
      backend,
      withOutput("x"),
    );
    expect(full.score).toBe(0.9);
    await expect(
      req("d", () => "yes" as unknown as boolean).validate(backend, withOutput("x")),
    ).rejects.toBeInstanceOf(ValidationFunctionResultError);
    expect(backend.calls).toHaveLength(0);
  });

  it("marks check-only requirements, and turns strings into requirements", () => {
    expect(check("hidden").checkOnly).toBe(true);
    expect(req("shown").checkOnly).toBe(false);
    const fromString = reqify("be polite");
    expect(fromString).toBeInstanceOf(StandardRequirement);
    expect(fromString.description).toBe("be polite");
    const existing = req("x");
    expect(reqify(existing)).toBe(existing);
    expect(() => reqify(42 as unknown as string)).toThrow(TypeError);
    expect(isRequirement({ description: null, validate: () => null })).toBe(true);
    expect(() => new StandardRequirement(7 as unknown as string)).toThrow(TypeError);
  });
});

describe("simpleValidate", () => {
  it("checks the last output's text and keeps the given reason for booleans", async () => {
    const seen: string[] = [];
    const validate = simpleValidate((text) => {
      seen.push(text);
      return text.split(/\s+/).length <= 3;
    }, "at most three words");
    const short = await validate(withOutput("one two"));
    expect([short.result, short.reason]).toEqual([true, "at most three words"]);
    const long = await validate(withOutput("one two three four"));
    expect(long.result).toBe(false);
    expect(seen).toEqual(["one two", "one two three four"]);
  });

  it("takes [passed, reason] pairs", async () => {
    const result = await simpleValidate(async (text) => [text === "ok", `got ${text}`] as const)(
      withOutput("no"),
    );
    expect([result.result, result.reason]).toEqual([false, "got no"]);
  });

  it("fails an empty context without calling the function", async () => {
    let called = false;
    const result = await simpleValidate(() => {
      called = true;
      return true;
    })(new SimpleContext());
    expect(result.result).toBe(false);
    expect(called).toBe(false);
  });

  it.each([["yes"], [1], [null], [[true]], [[true, 5]], [new ValidationResult(true)]])(
    "rejects the return value %j with a typed error",
    async (value) => {
      await expect(simpleValidate(() => value as never)(withOutput("x"))).rejects.toBeInstanceOf(
        ValidationFunctionResultError,
      );
    },
  );

  it("works as a requirement's validation function", async () => {
    const requirement = req(
      "short",
      simpleValidate((text) => text.length < 5),
    );
    expect((await requirement.validate(scripted([]), withOutput("tiny"))).result).toBe(true);
  });
});

describe("schemaRequirement", () => {
  const schema = z.object({ name: z.string(), age: z.number().int().min(0) });

  it("passes JSON that matches, also inside a fenced block", async () => {
    const requirement = schemaRequirement(schema);
    expect((await requirement.validate(scripted([]), withOutput('{"name":"Ada","age":36}'))).result).toBe(
      true,
    );
    const fenced = 'Here:\n```json\n{"name":"Ada","age":36}\n```';
    expect((await requirement.validate(scripted([]), withOutput(fenced))).result).toBe(true);
  });

  it("names each failing field, and reports text that is not JSON", async () => {
    const requirement = schemaRequirement(schema);
    const wrong = await requirement.validate(scripted([]), withOutput('{"name":1,"age":-1}'));
    expect(wrong.result).toBe(false);
    expect(wrong.reason).toContain("name:");
    expect(wrong.reason).toContain("age:");
    const notJson = await requirement.validate(scripted([]), withOutput("Ada, 36"));
    expect(notJson.reason).toContain("not valid JSON");
  });
});
