// Comma lists of whole numbers on the command line (--prompt-tokens): each value checked, and a value
// listed twice refused, since bench ttfb would run it twice and report one row holding both sets of runs.
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { listOfIntegers } from "../../src/cli/number-arguments.js";

describe("listOfIntegers", () => {
  const parse = listOfIntegers(8);

  it("reads a list, spaces allowed", () => {
    expect(parse("16, 256,1024")).toEqual([16, 256, 1024]);
  });

  it("refuses a value below the minimum and a value listed twice, naming it", () => {
    expect(() => parse("16,7")).toThrow(InvalidArgumentError);
    expect(() => parse("16,256,16")).toThrow("16 is listed twice; list each value once.");
  });
});
