import type { Backend } from "../../core/backend.js";
import type { Context } from "../../core/context.js";
import { Query } from "../components/query.js";
import type { Subject } from "../components/subject-text.js";
import { Transform } from "../components/transform.js";
import { type ActOptions, type ActResult, act } from "./act.js";

/** Ask a question about an object (text, a component, or data shown as JSON). */
export async function query<T = string>(
  subject: Subject,
  question: string,
  context: Context,
  backend: Backend,
  options: ActOptions<T> = {},
): Promise<ActResult<T>> {
  return act<T>(new Query(subject, question) as never, context, backend, options);
}

/** Ask for a rewritten version of an object (text, a component, or data shown as JSON). */
export async function transform<T = string>(
  subject: Subject,
  transformation: string,
  context: Context,
  backend: Backend,
  options: ActOptions<T> = {},
): Promise<ActResult<T>> {
  return act<T>(new Transform(subject, transformation) as never, context, backend, options);
}
