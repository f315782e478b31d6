import { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import { ModelOutputThunk } from "../../core/model-output-thunk.js";

/** What query() and transform() work on: text, a block or component (rendered by its template), or data. */
export type Subject =
  | string
  | CBlock
  | Component<unknown>
  | ModelOutputThunk<unknown>
  | object
  | number
  | boolean;

/** Spans pass through for the formatter to render; plain data is shown as indented JSON. */
export function subjectForTemplate(subject: Subject): unknown {
  if (typeof subject === "string") return subject;
  if (subject instanceof CBlock || Component.isInstance(subject) || ModelOutputThunk.isInstance(subject)) {
    return subject;
  }
  try {
    return JSON.stringify(subject, null, 2) ?? String(subject);
  } catch {
    // Cyclic data still gets a description rather than an exception mid-prompt.
    return String(subject);
  }
}
