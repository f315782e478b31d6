import type { ChatMessage } from "./chat-message.js";
import type { ContentChunk } from "./chunks/content-chunk.js";
import { ImageURLChunk } from "./chunks/image-url-chunk.js";
import type { Role } from "./roles.js";
import { toolCallArgumentsText } from "./tool-call.js";

const indentUnit = "  ";

/** Like Python's textwrap.indent: whitespace-only lines stay unindented. */
export function indentLines(text: string, prefix: string = indentUnit): string {
  return text
    .split(/(?<=\n)/)
    .map((line) => (line.trim() === "" ? line : prefix + line))
    .join("");
}

function capitalizeRole(role: Role): string {
  return role.charAt(0).toUpperCase() + role.slice(1);
}

function chunkText(chunk: ContentChunk): string {
  switch (chunk.type) {
    case "text":
      return chunk.text;
    case "image":
      return "[IMAGE CHUNK]";
    case "image_url":
      return `[IMAGE URL: ${ImageURLChunk.getUrl(chunk)}]`;
  }
}

function contentLines(content: string | readonly ContentChunk[]): string[] {
  return typeof content === "string" ? [content] : content.map(chunkText);
}

function messageBody(message: ChatMessage): string[] {
  switch (message.role) {
    case "system":
    case "user":
      return contentLines(message.content);
    case "assistant": {
      const lines: string[] = [];
      if (message.content) lines.push(message.content);
      for (const toolCall of message.toolCalls ?? []) {
        const name = toolCall.function.name;
        lines.push(`<${name}><arguments>${toolCallArgumentsText(toolCall)}</arguments></${name}>`);
      }
      return lines;
    }
    case "tool":
      return [`Tool Result (ID: ${message.toolCallId}):\n${indentLines(message.content)}`];
  }
}

function lastTurnPreview(message: ChatMessage): string {
  switch (message.role) {
    case "assistant":
      return message.content || "[tool calls]";
    case "tool":
      return message.content;
    default:
      return contentLines(message.content).join("\n");
  }
}

/**
 * The whole history as one plain-text prompt (seed: `make_instruction_prompt`), for models or
 * endpoints without a chat template. The first system message becomes the instruction.
 */
export function makeInstructionPrompt(
  messages: readonly ChatMessage[],
  conversationNameHolder = "Messages",
  mentionLastTurn = true,
): string {
  const parts: string[] = ["# Instruction"];
  const systemMessage = messages.find((message) => message.role === "system");
  if (systemMessage && systemMessage.content.length > 0) {
    const text =
      typeof systemMessage.content === "string"
        ? systemMessage.content
        : systemMessage.content.map((chunk) => (chunk.type === "text" ? chunk.text : "")).join("");
    parts.push(indentLines(text.trim()));
  } else {
    parts.push(`${indentUnit}(No system prompt provided)`);
  }

  const conversation = messages.filter((message) => message.role !== "system");
  if (conversation.length > 0) {
    parts.push(`\n# ${conversationNameHolder}`);
    const blocks = conversation.map(
      (message) =>
        `## ${capitalizeRole(message.role)}\n${indentLines(messageBody(message).join("\n").trim())}`,
    );
    parts.push(blocks.join("\n\n"));
    if (mentionLastTurn) {
      const last = conversation[conversation.length - 1]!;
      parts.push(`\nLast Message from ${capitalizeRole(last.role)}: ${lastTurnPreview(last)}`);
    }
  }
  return parts.join("\n\n");
}
