import { describe, expect, it } from "vitest";
import { CBlock } from "../../src/core/index.js";
import { TemplateFormatter } from "../../src/formatting/index.js";
import {
  check,
  Document,
  Instruction,
  Message,
  MissingUserVariableError,
  Query,
  req,
  substituteUserVariables,
  ToolMessage,
  Transform,
} from "../../src/stdlib/index.js";
import { captureError } from "../helpers/capture-error.js";

const formatter = new TemplateFormatter("scripted");

describe("Instruction", () => {
  it("renders description, shown requirements, examples, grounding context and prefix", () => {
    const instruction = new Instruction({
      description: "Summarise the {{topic}} report.",
      requirements: ["Use at most {{limit}} words.", req("Be neutral."), check("Never mention the budget.")],
      iclExamples: ["A short summary."],
      groundingContext: { report: new Document("Sales rose.", "Q3"), note: "draft" },
      userVariables: { topic: "sales", limit: "50" },
      prefix: "Summary:",
    });
    const prompt = formatter.print(instruction);
    expect(prompt).toContain("Summarise the sales report.");
    expect(prompt).toContain("* Use at most 50 words.");
    expect(prompt).toContain("* Be neutral.");
    expect(prompt).not.toContain("budget");
    expect(prompt).toContain("<example>\nA short summary.\n</example>");
    expect(prompt).toContain("[report] = [Document]\nQ3: Sales rose.");
    expect(prompt).toContain("[note] = draft");
    expect(prompt).toContain("Start your answer with: Summary:");
    expect(prompt).not.toContain("previous answer");
    expect(instruction.requirements).toHaveLength(3);
    expect(instruction.requirements[2]!.checkOnly).toBe(true);
  });

  it("accepts a bare description and renders nothing else", () => {
    expect(formatter.print(new Instruction("Say hi."))).toBe("Say hi.");
  });

  it("copyAndRepair adds the repair note to a copy and leaves the original untouched", () => {
    const original = new Instruction({ description: "Write a haiku.", requirements: ["Three lines."] });
    const repaired = original.copyAndRepair("The following requirements failed before:\n* Three lines.");
    expect(repaired).toBeInstanceOf(Instruction);
    expect(repaired).not.toBe(original);
    expect(original.repair).toBeNull();
    expect(repaired.requirements).toBe(original.requirements);
    const prompt = formatter.print(repaired);
    expect(prompt).toContain("Write a haiku.");
    expect(prompt).toContain(
      "did not meet every requirement. The following requirements failed before:\n* Three lines.",
    );
    expect(repaired.copyAndRepair("second").repair).toBe("second");
  });

  it("reports a placeholder without a variable, and never evaluates variable values", () => {
    expect(() => new Instruction({ description: "Hi {{name}}", userVariables: { other: "x" } })).toThrow(
      MissingUserVariableError,
    );
    expect(substituteUserVariables("{{a}} and {{ a }}", { a: "{{b}}" })).toBe("{{b}} and {{b}}");
    expect(substituteUserVariables("{{untouched}}", null)).toBe("{{untouched}}");
    const error = captureError(() => substituteUserVariables("{{missing}}", { present: "1" }));
    expect(MissingUserVariableError.isInstance(error)).toBe(true);
    expect((error as MissingUserVariableError).variableName).toBe("missing");
    expect((error as MissingUserVariableError).message).toContain("given: present");
  });

  it("lists its parts and carries its media", () => {
    const instruction = new Instruction({ description: "d", iclExamples: [new CBlock("e")], prefix: "p" });
    expect(instruction.parts().map(String)).toEqual(["d", "e", "p"]);
    expect(instruction.images).toBeNull();
  });
});

describe("Query and Transform", () => {
  it("render the object and the request", () => {
    expect(formatter.print(new Query("The sky is blue.", "What colour is the sky?"))).toContain(
      "<object>\nThe sky is blue.\n</object>\n\nAnswer this question about the object above: What colour is the sky?",
    );
    const data = formatter.print(new Transform({ items: [1, 2] }, "Sort descending."));
    expect(data).toContain('"items": [');
    expect(data).toContain("Transform the object above as follows: Sort descending.");
    expect(formatter.print(new Query(new Document("text", "T"), "q"))).toContain("T: text");
  });
});

describe("re-exported chat components", () => {
  it("are the messages layer's classes", () => {
    expect(new Message("user", "hi").role).toBe("user");
    expect(typeof ToolMessage).toBe("function");
  });
});
