import { SubjectComponent } from "./subject-component.js";
import type { Subject } from "./subject-text.js";

/** A question about an object (text, a document, data); rendered by `Query.njk`, answered in text. */
export class Query extends SubjectComponent {
  readonly question: string;

  constructor(subject: Subject, question: string) {
    super(subject, "Query");
    this.question = question;
  }

  protected templateArgs(): Record<string, unknown> {
    return { ...this.subjectArgs(), question: this.question };
  }
}
