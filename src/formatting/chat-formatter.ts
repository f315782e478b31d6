import { Component } from "../core/component.js";
import { ModelOutputThunk } from "../core/model-output-thunk.js";
import type { Span } from "../core/span.js";
import type { ChatRole } from "../core/template-representation.js";
import { Message } from "../messages/components/message.js";
import { buildToolCalls } from "../messages/openai/tool-calls.js";
import { UncomputedOutputError } from "./errors/uncomputed-output-error.js";
import type { Formatter } from "./formatter.js";

/**
 * Turns a linear context view into chat messages: a model output becomes an assistant message
 * (its parsed component when it has one), a `Message` passes through, and any other component or
 * block becomes a user message unless its representation names a role. Subclasses supply print().
 */
export abstract class ChatFormatter implements Formatter {
  abstract print(span: Span): string;

  toChatMessages(spans: readonly Span[]): Message[] {
    return spans.map((span) => this.#toMessage(span));
  }

  #toMessage(span: Span): Message {
    let role: ChatRole = "user";
    let current: Span = span;
    if (ModelOutputThunk.isInstance(current)) {
      role = "assistant";
      const output = current;
      if (!output.isComputed() || output.value === null) throw new UncomputedOutputError();
      const parsed = output.parsedRepr;
      if (Component.isInstance(parsed)) {
        current = parsed;
      } else if (parsed !== null && parsed !== undefined && typeof parsed !== "string") {
        return new Message(role, stringifyParsed(parsed), { thinking: output.thinking });
      } else {
        // The text the model produced, with what else came with it (reasoning, tool calls).
        return new Message(role, output.value, {
          thinking: output.thinking,
          toolCalls: buildToolCalls(output),
        });
      }
    }
    if (Message.isInstance(current)) return current;
    if (Component.isInstance(current)) {
      const representation = current.formatForLlm();
      if (typeof representation === "string") return new Message(role, this.print(current));
      return new Message(representation.role ?? role, this.print(current), {
        images: representation.images ?? null,
        audio: representation.audio ?? null,
        thinking: representation.thinking ?? null,
        toolCalls: representation.toolCalls ?? null,
        toolCallId: representation.toolCallId ?? null,
      });
    }
    // A CBlock (or any other span): its text, as printed.
    return new Message(role, this.print(current));
  }
}

function stringifyParsed(parsed: unknown): string {
  try {
    return JSON.stringify(parsed) ?? String(parsed);
  } catch {
    return String(parsed);
  }
}
