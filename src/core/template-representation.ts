import type { AbstractTool } from "./abstract-tool.js";
import type { AudioBlock } from "./media/audio-block.js";
import type { AudioUrlBlock } from "./media/audio-url-block.js";
import type { ImageBlock } from "./media/image-block.js";
import type { ImageUrlBlock } from "./media/image-url-block.js";

/** Chat roles a component can be serialized as. */
export type ChatRole = "system" | "user" | "assistant" | "tool";

/** An OpenAI-compatible assistant tool call, as carried on a serialized message. */
export interface AssistantToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * A component as the set of attributes the formatter consumes. Returned by Component.formatForLlm();
 * a plain object literal is enough: `{ obj: this, args: { description } }`.
 */
export interface TemplateRepresentation {
  /** The component being represented. */
  obj: unknown;
  /** Named values for template substitution. */
  args: Record<string, unknown>;
  /** Tools available for this representation, keyed by the tool's function name. */
  tools?: Record<string, AbstractTool> | null;
  /** Ordered field values for positional templates. */
  fields?: unknown[] | null;
  /** A template string to use instead of the component's template file. */
  template?: string | null;
  /** Ordering hint: template names to try, most specific first. */
  templateOrder?: string[] | null;
  images?: Array<ImageBlock | ImageUrlBlock> | null;
  audio?: Array<AudioBlock | AudioUrlBlock> | null;
  /** Role to serialize as; when absent the formatter guesses ("assistant" for model output, else "user"). */
  role?: ChatRole | null;
  /** Reasoning trace to carry onto the serialized message. */
  thinking?: string | null;
  /** Assistant tool calls to carry onto the serialized message. */
  toolCalls?: AssistantToolCall[] | null;
  /** For role "tool": the provider-supplied id of the call this message answers. */
  toolCallId?: string | null;
  /** For role "tool": the name of the tool whose result this message carries. */
  toolName?: string | null;
  /**
   * Extra wire fields per provider target: outer key is a provider (matched against the backend's provider
   * string, with the "openai" wire-family alias and a "*" wildcard), inner object is merged into the wire
   * message. Known fields win on collision; a named target that the request does not hit (and no "*") is an
   * error at serialization.
   */
  providerFields?: Record<string, Record<string, unknown>> | null;
}
