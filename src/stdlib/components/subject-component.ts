import type { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { type Subject, subjectForTemplate } from "./subject-text.js";
import { TemplatedComponent } from "./templated-component.js";

/**
 * What Query and Transform share: a request about a subject (text, a document, data), answered in text.
 * A subject that is a component is a part, so its own template renders it inside this one.
 */
export abstract class SubjectComponent extends TemplatedComponent<string> {
  readonly subject: Subject;

  constructor(subject: Subject, templateName: string) {
    super(templateName);
    this.subject = subject;
  }

  override parts(): Array<Component<unknown> | CBlock> {
    return Component.isInstance(this.subject) ? [this.subject] : [];
  }

  /** The subject as the template shows it, next to the subclass's own arguments. */
  protected subjectArgs(): { subject: unknown } {
    return { subject: subjectForTemplate(this.subject) };
  }

  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}
