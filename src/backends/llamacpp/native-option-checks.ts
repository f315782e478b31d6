// Argument checks in sharp's style ("Expected ... for ... but received ..."), run before any native
// call so that the addon can trust its inputs.
import { InvalidOptionError } from "./errors/invalid-option-error.js";

export function rejectUnknownOptions(
  where: string,
  options: object | undefined,
  known: ReadonlySet<string>,
): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null) {
    throw new InvalidOptionError(where, "an options object", options);
  }
  for (const name of Object.keys(options)) {
    if (!known.has(name)) {
      throw new InvalidOptionError(
        `${where}.${name}`,
        `one of the known options (${[...known].join(", ")})`,
        name,
      );
    }
  }
}

/** `hint` says why the range is what it is, when that is not obvious (appended in parentheses). */
export function checkInteger(
  name: string,
  value: unknown,
  minimum: number,
  maximum: number,
  hint?: string,
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum || value > maximum) {
    const range = maximum === Number.MAX_SAFE_INTEGER ? `>= ${minimum}` : `between ${minimum} and ${maximum}`;
    throw new InvalidOptionError(name, `an integer ${range}${hint ? ` (${hint})` : ""}`, value);
  }
  return value;
}

export interface NumberRange {
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
}

export function checkNumber(name: string, value: unknown, range: NumberRange = {}): number {
  const { minimum, maximum, exclusiveMinimum = false } = range;
  const tooLow =
    minimum !== undefined &&
    typeof value === "number" &&
    (exclusiveMinimum ? value <= minimum : value < minimum);
  const tooHigh = maximum !== undefined && typeof value === "number" && value > maximum;
  if (typeof value !== "number" || !Number.isFinite(value) || tooLow || tooHigh) {
    const parts: string[] = [];
    if (minimum !== undefined) parts.push(`${exclusiveMinimum ? ">" : ">="} ${minimum}`);
    if (maximum !== undefined) parts.push(`<= ${maximum}`);
    throw new InvalidOptionError(
      name,
      `a finite number${parts.length ? ` ${parts.join(" and ")}` : ""}`,
      value,
    );
  }
  return value;
}

export function checkBoolean(name: string, value: unknown): boolean {
  if (typeof value !== "boolean") throw new InvalidOptionError(name, "a boolean", value);
  return value;
}

export function checkChoice<T extends string>(name: string, value: unknown, choices: readonly T[]): T {
  if (typeof value !== "string" || !(choices as readonly string[]).includes(value)) {
    const listed = choices.map((choice) => JSON.stringify(choice)).join(", ");
    throw new InvalidOptionError(name, `one of ${listed}`, value);
  }
  return value as T;
}

export function checkString(name: string, value: unknown): string {
  if (typeof value !== "string") throw new InvalidOptionError(name, "a string", value);
  return value;
}

export function checkSignal(name: string, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) throw new InvalidOptionError(name, "an AbortSignal", value);
  return value;
}

/** Copies token ids into an Int32Array, checking each against the vocabulary. */
export function checkTokens(name: string, tokens: unknown, vocabSize: number): Int32Array {
  if (!(tokens instanceof Int32Array) && !Array.isArray(tokens) && !ArrayBuffer.isView(tokens)) {
    throw new InvalidOptionError(name, "an array (or Int32Array) of token ids", tokens);
  }
  const source = tokens as ArrayLike<number>;
  const result = new Int32Array(source.length);
  for (let index = 0; index < source.length; index++) {
    const token = source[index];
    if (typeof token !== "number" || !Number.isInteger(token) || token < 0 || token >= vocabSize) {
      throw new InvalidOptionError(`${name}[${index}]`, `a token id in [0, ${vocabSize})`, token);
    }
    result[index] = token;
  }
  return result;
}
