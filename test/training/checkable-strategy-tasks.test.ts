// The strategy benchmark's tasks for tiny-arith: held-out problems (never in the training corpus), put to
// the model in the format it was trained on (the instruction renders as exactly `07+45=`, the requirement
// is checked, not shown), and checked by the exact answer.
import { describe, expect, it } from "vitest";
import { checkableStrategyTasks } from "../../src/bench/strategy-tasks.js";
import { TemplateFormatter } from "../../src/formatting/index.js";
import { Instruction } from "../../src/stdlib/components/instruction.js";
import { check } from "../../src/stdlib/requirements/requirement-helpers.js";
import { additionCorpus, additionSplit } from "../../src/training/addition-task.js";
import { sortingCorpus, sortingSplit } from "../../src/training/sorting-task.js";

const tasks = checkableStrategyTasks("addition");

describe('checkableStrategyTasks("addition")', () => {
  it("are held-out problems: no prompt occurs in any training line", () => {
    const split = additionSplit();
    const corpus = new Set(additionCorpus(split, 1, 1).split("\n"));
    const trainingPrompts = new Set([...corpus].map((line) => line.slice(0, line.indexOf("=") + 1)));
    expect(tasks.length).toBeGreaterThan(0);
    for (const task of tasks) expect(trainingPrompts.has(task.prompt)).toBe(false);
    expect(tasks.map((task) => task.prompt)).toEqual(
      split.heldOut.slice(0, tasks.length).map((item) => item.prompt),
    );
  });

  it("use the trained format: zero-padded operands, the answer least significant digit first", () => {
    for (const task of tasks) expect(task.prompt).toMatch(/^\d\d\+\d\d=$/);
    const [left, right] = tasks[0]!.prompt.slice(0, -1).split("+").map(Number) as [number, number];
    const answer = [...String(left + right).padStart(3, "0")].reverse().join("");
    expect(tasks[0]!.verify(answer)).toBe(true);
    expect(tasks[0]!.verify(`${answer}\n12+34=`)).toBe(true);
    const wrong = answer.replace(/^./, (digit) => String((Number(digit) + 1) % 10));
    expect(tasks[0]!.verify(wrong)).toBe(false);
    expect(tasks[0]!.verify("")).toBe(false);
  });

  it("render as exactly the prompt, ending at the answer's newline", () => {
    const formatter = new TemplateFormatter("tiny-arith");
    for (const task of tasks) {
      expect(task.raw).toBe(true);
      expect(task.stopSequences).toEqual(["\n"]);
      const instruction = new Instruction({
        description: task.prompt,
        requirements: [check(task.requirement, () => true)],
      });
      expect(formatter.print(instruction)).toBe(task.prompt);
    }
  });
});

describe("the sorting task", () => {
  it("holds out problems that no training line contains, and its strategy tasks are among them", () => {
    const split = sortingSplit();
    const trainingPrompts = new Set(
      sortingCorpus(split, 1, 1)
        .split("\n")
        .map((line) => line.slice(0, line.indexOf("=") + 1)),
    );
    expect(split.heldOut).toHaveLength(400);
    expect(split.training.length + split.heldOut.length).toBe(10_000);
    for (const item of split.heldOut) expect(trainingPrompts.has(item.prompt)).toBe(false);
    const sorting = checkableStrategyTasks("sorting");
    expect(sorting.map((task) => task.prompt)).toEqual(
      split.heldOut.slice(0, sorting.length).map((item) => item.prompt),
    );
    expect(sorting[0]!.verify([...sorting[0]!.prompt.slice(0, -1)].sort().join(""))).toBe(true);
  });
});
