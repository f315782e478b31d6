import type { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { TemplateRepresentation } from "../../core/template-representation.js";
import { type Subject, subjectForTemplate } from "./subject-text.js";

/** A question about an object (text, a document, data); rendered by `Query.njk`, answered in text. */
export class Query extends Component<string> {
  readonly subject: Subject;
  readonly question: string;

  constructor(subject: Subject, question: string) {
    super();
    this.subject = subject;
    this.question = question;
    this.images = null;
    this.audio = null;
  }

  parts(): Array<Component<unknown> | CBlock> {
    return Component.isInstance(this.subject) ? [this.subject] : [];
  }

  formatForLlm(): TemplateRepresentation {
    return {
      obj: this,
      args: { subject: subjectForTemplate(this.subject), question: this.question },
      templateOrder: ["*", "Query"],
    };
  }

  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}
