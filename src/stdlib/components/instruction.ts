import { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { AudioBlock } from "../../core/media/audio-block.js";
import type { AudioUrlBlock } from "../../core/media/audio-url-block.js";
import type { ImageBlock } from "../../core/media/image-block.js";
import type { ImageUrlBlock } from "../../core/media/image-url-block.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { Requirement } from "../../core/requirement.js";
import type { Span } from "../../core/span.js";
import type { TemplateRepresentation } from "../../core/template-representation.js";
import { reqify } from "../requirements/requirement-helpers.js";
import { substituteUserVariables } from "./user-variables.js";

/** Content an instruction can carry: text, or a block or component rendered through its own template. */
export type InstructionContent = string | CBlock | Component<unknown>;

export interface InstructionOptions {
  /** What the model should do. `{{name}}` placeholders are filled from userVariables. */
  description?: string | null;
  /** Requirements on the output; strings become judged requirements. Check-only ones are not shown. */
  requirements?: ReadonlyArray<string | Requirement>;
  /** In-context examples, shown in order. */
  iclExamples?: readonly InstructionContent[];
  /** Named grounding passages (documents, data), shown as `[name] = value`. */
  groundingContext?: Readonly<Record<string, InstructionContent>>;
  /** Values for `{{name}}` placeholders in the description, requirements, examples, grounding and prefix. */
  userVariables?: Readonly<Record<string, string>> | null;
  /** Text the answer should start with (the template asks the model to begin with it). */
  prefix?: string | null;
  images?: Array<ImageBlock | ImageUrlBlock> | null;
  audio?: Array<AudioBlock | AudioUrlBlock> | null;
}

/**
 * An instruction to the model: a description with requirements, examples, grounding context and media,
 * rendered by `Instruction.njk`. Immutable; copyAndRepair() makes the repaired copy strategies send.
 */
export class Instruction extends Component<string> {
  readonly description: string | null;
  readonly requirements: readonly Requirement[];
  readonly iclExamples: readonly InstructionContent[];
  readonly groundingContext: Readonly<Record<string, InstructionContent>>;
  readonly prefix: string | null;
  /** Feedback from a failed attempt (set by copyAndRepair); null on a first attempt. */
  readonly repair: string | null;

  constructor(options: InstructionOptions | string = {}) {
    super();
    const init = typeof options === "string" ? { description: options } : options;
    const variables = init.userVariables ?? null;
    const fill = (text: string) => substituteUserVariables(text, variables);
    const fillContent = (content: InstructionContent) =>
      typeof content === "string" ? fill(content) : content;
    this.description =
      init.description === null || init.description === undefined ? null : fill(init.description);
    this.requirements = (init.requirements ?? []).map((requirement) =>
      reqify(typeof requirement === "string" ? fill(requirement) : requirement),
    );
    this.iclExamples = (init.iclExamples ?? []).map(fillContent);
    this.groundingContext = Object.fromEntries(
      Object.entries(init.groundingContext ?? {}).map(([name, content]) => [name, fillContent(content)]),
    );
    this.prefix = init.prefix === null || init.prefix === undefined ? null : fill(init.prefix);
    this.repair = null;
    // null, not undefined: the attachments are exactly these, with no fallback to the representation.
    this.images = init.images ?? null;
    this.audio = init.audio ?? null;
  }

  /** A copy that also tells the model what went wrong last time (the text replaces any earlier repair). */
  copyAndRepair(repairText: string): Instruction {
    const copy = Object.create(Instruction.prototype) as Instruction;
    Object.assign(copy, this);
    (copy as { repair: string | null }).repair = repairText;
    return copy;
  }

  /** The requirement descriptions the model is shown (check-only ones and those without text are hidden). */
  get shownRequirements(): string[] {
    return this.requirements
      .filter((requirement) => requirement.checkOnly !== true && requirement.description !== null)
      .map((requirement) => requirement.description as string);
  }

  parts(): Span[] {
    const blocks: Span[] = [];
    if (this.description !== null) blocks.push(new CBlock(this.description));
    for (const content of [...this.iclExamples, ...Object.values(this.groundingContext)]) {
      blocks.push(typeof content === "string" ? new CBlock(content) : content);
    }
    if (this.prefix !== null) blocks.push(new CBlock(this.prefix));
    return blocks;
  }

  formatForLlm(): TemplateRepresentation {
    return {
      obj: this,
      args: {
        description: this.description,
        requirements: this.shownRequirements,
        iclExamples: this.iclExamples,
        groundingContext: Object.entries(this.groundingContext).map(([name, value]) => ({ name, value })),
        repair: this.repair,
        prefix: this.prefix,
      },
      templateOrder: ["*", "Instruction"],
      images: this.images ?? null,
      audio: this.audio ?? null,
    };
  }

  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}
