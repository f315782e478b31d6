import type { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { TemplateRepresentation } from "../../core/template-representation.js";

/**
 * A text passage with an optional title and id, used to ground a message (RAG). Rendered by the
 * `Document` template as `[Document <id>]` then `<title>: <text>`.
 */
export class Document extends Component<string> {
  readonly text: string;
  readonly title: string | null;
  readonly docId: string | null;

  constructor(text: string, title: string | null = null, docId: string | null = null) {
    super();
    this.text = text;
    this.title = title;
    this.docId = docId;
  }

  parts(): Array<Component<unknown> | CBlock> {
    return [];
  }

  formatForLlm(): TemplateRepresentation {
    return {
      obj: this,
      args: { text: this.text, title: this.title, docId: this.docId },
      templateOrder: ["*", "Document"],
    };
  }

  protected parseOutput(computed: ModelOutputThunk<string>): string {
    return computed.value ?? "";
  }
}

/** Strings become documents without title or id; documents pass through. */
export function coerceToDocuments(
  documents: Iterable<string | Document> | null | undefined,
): Document[] | null {
  if (documents === null || documents === undefined) return null;
  return Array.from(documents, (document) =>
    typeof document === "string" ? new Document(document) : document,
  );
}
