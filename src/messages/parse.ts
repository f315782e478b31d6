import type { z } from "zod";
import { InvalidMessageError } from "./errors/invalid-message-error.js";

/** Parse with a zod schema; a failure becomes an `InvalidMessageError` that names every bad path. */
export function parseOrThrow<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new InvalidMessageError(what, result.error);
  return result.data;
}
