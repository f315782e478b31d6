import type { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { TemplateRepresentation } from "../../core/template-representation.js";

/**
 * Base of stdlib's prompt components (Query, Transform, GenerativeSlot, RequirementJudge): each is rendered
 * by the template named after its class, falling back to `templateName` so a subclass someone writes
 * without a template of its own still renders, and none of them carries media.
 */
export abstract class TemplatedComponent<T = string> extends Component<T> {
  readonly #templateName: string;

  constructor(templateName: string) {
    super();
    this.#templateName = templateName;
    // None: these prompts never carry media, and null stops the representation fallback.
    this.images = null;
    this.audio = null;
  }

  /** A leaf by default; a component that renders a sub-component returns it here. */
  parts(): Array<Component<unknown> | CBlock> {
    return [];
  }

  formatForLlm(): TemplateRepresentation {
    return { obj: this, args: this.templateArgs(), templateOrder: ["*", this.#templateName] };
  }

  /** The arguments the template renders. */
  protected abstract templateArgs(): Record<string, unknown>;
}
