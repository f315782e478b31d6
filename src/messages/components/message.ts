import { CBlock } from "../../core/cblock.js";
import { Component } from "../../core/component.js";
import type { AudioBlock } from "../../core/media/audio-block.js";
import type { AudioUrlBlock } from "../../core/media/audio-url-block.js";
import type { ImageBlock } from "../../core/media/image-block.js";
import type { ImageUrlBlock } from "../../core/media/image-url-block.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import type { AssistantToolCall, TemplateRepresentation } from "../../core/template-representation.js";
import { buildToolCalls } from "../openai/tool-calls.js";
import { parseOrThrow } from "../parse.js";
import { type Role, roleSchema } from "../roles.js";
import { coerceToDocuments, type Document } from "./document.js";

export interface MessageOptions {
  images?: Array<ImageBlock | ImageUrlBlock> | null;
  audio?: Array<AudioBlock | AudioUrlBlock> | null;
  /** Grounding passages; strings become untitled documents. */
  documents?: Iterable<string | Document> | null;
  /** Tool calls an assistant turn made (OpenAI-compatible). */
  toolCalls?: AssistantToolCall[] | null;
  /** For role "tool": the provider's id of the call this message answers. */
  toolCallId?: string | null;
  /** The reasoning trace of an assistant turn. */
  thinking?: string | null;
}

const marker = Symbol.for("tessera.Message");

/** One turn of a chat: a role, text content, and optional images, audio, documents and tool data. */
export class Message extends Component<Message> {
  readonly [marker] = true;
  readonly role: Role;
  readonly content: string;
  readonly documents: Document[] | null;
  readonly toolCalls: AssistantToolCall[] | null;
  readonly toolCallId: string | null;
  readonly thinking: string | null;
  readonly #contentBlock: CBlock;

  constructor(role: Role, content: string, options: MessageOptions = {}) {
    super();
    this.role = parseOrThrow(roleSchema, role, "message role");
    if (typeof content !== "string") {
      throw new TypeError(`Message content must be a string, got ${typeof content}; stringify it first.`);
    }
    this.content = content;
    this.#contentBlock = new CBlock(content);
    // null (not undefined) so core's attachment lookup does not fall back to the representation.
    this.images = options.images ?? null;
    this.audio = options.audio ?? null;
    this.documents = coerceToDocuments(options.documents);
    this.toolCalls = options.toolCalls ?? null;
    this.toolCallId = options.toolCallId ?? null;
    this.thinking = options.thinking ?? null;
  }

  parts(): Array<Component<unknown> | CBlock> {
    return [this.#contentBlock, ...(this.documents ?? []), ...(this.images ?? [])];
  }

  formatForLlm(): TemplateRepresentation {
    return {
      obj: this,
      args: { role: this.role, content: this.#contentBlock, images: this.images, documents: this.documents },
      templateOrder: ["*", "Message"],
      images: this.images ?? null,
      audio: this.audio ?? null,
      role: this.role,
      thinking: this.thinking,
      toolCalls: this.toolCalls,
      toolCallId: this.toolCallId,
    };
  }

  /** The model's output as an assistant message, carrying its reasoning and tool calls when known. */
  protected parseOutput(computed: ModelOutputThunk<Message>): Message {
    return new Message("assistant", computed.value ?? "", {
      thinking: computed.thinking,
      toolCalls: buildToolCalls(computed),
    });
  }

  /** True for any Message, also one from another copy of this package. */
  static override isInstance(value: unknown): value is Message {
    return typeof value === "object" && value !== null && marker in value;
  }
}
