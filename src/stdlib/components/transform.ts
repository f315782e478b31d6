import { SubjectComponent } from "./subject-component.js";
import type { Subject } from "./subject-text.js";

/** A request to rewrite an object (text, a document, data); rendered by `Transform.njk`. */
export class Transform extends SubjectComponent {
  readonly transformation: string;

  constructor(subject: Subject, transformation: string) {
    super(subject, "Transform");
    this.transformation = transformation;
  }

  protected templateArgs(): Record<string, unknown> {
    return { ...this.subjectArgs(), transformation: this.transformation };
  }
}
