import type { z } from "zod";
import { InvalidRequestError } from "./errors/invalid-request-error.js";

/** The body checked against `schema`; the first problem becomes a 400 naming its field. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(body ?? undefined);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.length > 0 ? formatPath(issue.path) : null;
  const problem = body === undefined || body === null ? "a JSON body is required" : issue.message;
  throw new InvalidRequestError(problem, param, "invalid_value");
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((part, index) =>
      typeof part === "number" ? `[${part}]` : index === 0 ? String(part) : `.${String(part)}`,
    )
    .join("");
}
