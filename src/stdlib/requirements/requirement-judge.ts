import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { TemplatedComponent } from "../components/templated-component.js";

/**
 * The prompt that asks a model whether an output meets a requirement (LLM-as-judge). Rendered by
 * `RequirementJudge.njk`; its answer is read by readJudgeAnswer().
 */
export class RequirementJudge extends TemplatedComponent<string> {
  readonly description: string;
  readonly output: string;

  constructor(description: string, output: string) {
    super("RequirementJudge");
    this.description = description;
    this.output = output;
  }

  protected templateArgs(): Record<string, unknown> {
    return { description: this.description, output: this.output };
  }

  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}
