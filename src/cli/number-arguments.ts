// Commander argument parsers that reject bad numbers with one clear line (commander prints
// "tessera: option '--top-p <p>' argument '2' is invalid. Expected ...").
import { InvalidArgumentError } from "commander";

export function integerArgument(minimum: number, maximum = Number.MAX_SAFE_INTEGER) {
  return (text: string): number => {
    const value = Number(text);
    if (text.trim() === "" || !Number.isInteger(value) || value < minimum || value > maximum) {
      throw new InvalidArgumentError(
        `Expected an integer${maximum === Number.MAX_SAFE_INTEGER ? ` of at least ${minimum}` : ` from ${minimum} to ${maximum}`}.`,
      );
    }
    return value;
  };
}

export function numberArgument(
  minimum = Number.NEGATIVE_INFINITY,
  maximum = Number.POSITIVE_INFINITY,
  options: { exclusiveMinimum?: boolean } = {},
) {
  const exclusive = options.exclusiveMinimum === true;
  const lowerBound = `${exclusive ? "above" : "at least"} ${minimum}`;
  const range =
    minimum === Number.NEGATIVE_INFINITY && maximum === Number.POSITIVE_INFINITY
      ? ""
      : maximum === Number.POSITIVE_INFINITY
        ? ` ${lowerBound}`
        : exclusive
          ? ` in (${minimum}, ${maximum}]`
          : ` from ${minimum} to ${maximum}`;
  return (text: string): number => {
    const value = Number(text);
    const tooSmall = exclusive ? value <= minimum : value < minimum;
    if (text.trim() === "" || !Number.isFinite(value) || tooSmall || value > maximum) {
      throw new InvalidArgumentError(`Expected a number${range}.`);
    }
    return value;
  };
}

export function listOfIntegers(minimum: number) {
  const one = integerArgument(minimum);
  return (text: string): number[] => {
    const values = text.split(",").map((part) => one(part.trim()));
    // A value listed twice would run twice and be reported as one row with both sets of runs.
    const repeated = values.find((value, index) => values.indexOf(value) !== index);
    if (repeated !== undefined)
      throw new InvalidArgumentError(`${repeated} is listed twice; list each value once.`);
    return values;
  };
}
