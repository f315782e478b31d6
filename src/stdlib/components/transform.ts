import type { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { TemplateRepresentation } from "../../core/template-representation.js";
import { type Subject, subjectForTemplate } from "./subject-text.js";

/** A request to rewrite an object (text, a document, data); rendered by `Transform.njk`. */
export class Transform extends Component<string> {
  readonly subject: Subject;
  readonly transformation: string;

  constructor(subject: Subject, transformation: string) {
    super();
    this.subject = subject;
    this.transformation = transformation;
    this.images = null;
    this.audio = null;
  }

  parts(): Array<Component<unknown> | CBlock> {
    return Component.isInstance(this.subject) ? [this.subject] : [];
  }

  formatForLlm(): TemplateRepresentation {
    return {
      obj: this,
      args: { subject: subjectForTemplate(this.subject), transformation: this.transformation },
      templateOrder: ["*", "Transform"],
    };
  }

  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}
