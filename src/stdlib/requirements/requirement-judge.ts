import type { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { TemplateRepresentation } from "../../core/template-representation.js";

/**
 * The prompt that asks a model whether an output meets a requirement (LLM-as-judge). Rendered by
 * `RequirementJudge.njk`; its answer is read by readJudgeAnswer().
 */
export class RequirementJudge extends Component<string> {
  readonly description: string;
  readonly output: string;

  constructor(description: string, output: string) {
    super();
    this.description = description;
    this.output = output;
    // None: a judge prompt never carries media, and null stops the representation fallback.
    this.images = null;
    this.audio = null;
  }

  parts(): Array<Component<unknown> | CBlock> {
    return [];
  }

  formatForLlm(): TemplateRepresentation {
    return {
      obj: this,
      args: { description: this.description, output: this.output },
      templateOrder: ["*", "RequirementJudge"],
    };
  }

  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}
