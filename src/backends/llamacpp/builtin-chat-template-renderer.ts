import { Template } from "@huggingface/jinja";
import { isBuiltinChatTemplateSource } from "./builtin-chat-templates.js";
import { ChatTemplateError } from "./errors/chat-template-error.js";
import { ChatTemplateLimitError } from "./errors/chat-template-limit-error.js";

// Parsed once per source: the built-ins are few and never change.
const compiled = new Map<string, Template>();

/**
 * Renders one of tessera's built-in chat templates in this thread, with the interpreter the sandbox uses
 * (so the text is the same), skipping the worker round trip (~0.1–0.2 ms of each first token). Only for
 * sources that match a built-in byte for byte: a model file's template stays in the sandbox. The sandbox's
 * output limit still applies; its time and memory limits guard against templates these are not, and
 * against inputs too big to render here (renderChatPrompt sends those to the sandbox).
 */
export function renderBuiltinChatTemplate(
  source: string,
  variables: Record<string, unknown>,
  templateName: string,
  maxOutputChars: number,
): string {
  if (!isBuiltinChatTemplateSource(source)) {
    throw new ChatTemplateError(templateName, "render", "only a built-in template may be rendered in-thread");
  }
  let template = compiled.get(source);
  if (template === undefined) {
    template = new Template(source);
    compiled.set(source, template);
  }
  const render = (values: Record<string, unknown>): string => {
    try {
      return template.render(values);
    } catch (error) {
      throw new ChatTemplateError(
        templateName,
        "render",
        error instanceof Error ? error.message : String(error),
      );
    }
  };
  const output = skeletonRender(source, variables, render) ?? render(variables);
  if (output.length > maxOutputChars) {
    throw new ChatTemplateLimitError(templateName, "outputChars", maxOutputChars, output.length);
  }
  return output;
}

/**
 * A conversation's render with its message texts left out, split where each text goes: the parts between
 * texts, and which message's text goes after each part. Null when the template does not insert the texts
 * as they are (llama3's `| trim`), found when the skeleton was made.
 */
interface Skeleton {
  parts: string[];
  texts: number[];
}

// Private-use characters mark where each message's text lands; a text holding one is rendered whole.
const openMark = "\u{F8FF}";
const closeMark = "\u{F8FE}";
const markPattern = /\u{F8FF}(\d+)\u{F8FE}/gu;
/** Per shape: its skeleton, null when the template changes texts, "seen" after its first render. */
const skeletons = new Map<string, Skeleton | null | "seen">();
/** Sources whose probe failed once (they change texts): every render of theirs goes whole. */
const textChangingSources = new Set<string>();
const keptSkeletons = 256;
const longestSkeletonKey = 16 * 1024;

/**
 * The render from a skeleton of the same conversation shape (the same roles, tool calls, tools, special
 * tokens and flags; only the texts differ), made once by rendering marks in place of the texts. The
 * interpreter walks the template's tree for every render, ~0.2 ms of each first token on a cold path
 * (docs/benchmarks.md); a skeleton is filled with plain string joins. Made only when a probe render, with
 * texts of surrounding white space, markup and template syntax, equals the skeleton filled with those
 * texts, so a template that trims, escapes or reorders a text is rendered whole every time. Only for the
 * built-ins, whose text is tessera's own and never branches on a message's text (a test renders each
 * both ways over many texts). A shape gets its skeleton the second time it is seen, so traffic whose every
 * request has a new shape (tool-call ids) pays only the key, not two extra renders. `variables` must be
 * plain JSON, as renderChatPrompt's copy is: the key is their JSON text. Undefined when this render must go
 * through the interpreter.
 */
function skeletonRender(
  source: string,
  variables: Record<string, unknown>,
  render: (values: Record<string, unknown>) => string,
): string | undefined {
  const messages = variables.messages;
  if (!Array.isArray(messages) || textChangingSources.has(source)) return undefined;
  const texts: string[] = [];
  for (const message of messages) {
    const text = (message as { content?: unknown } | null)?.content;
    // An empty text is rendered whole: a template may leave out a message without text.
    if (typeof text !== "string" || text === "" || text.includes(openMark) || text.includes(closeMark)) {
      return undefined;
    }
    texts.push(text);
  }
  const withTexts = (fill: (index: number) => string) => ({
    ...variables,
    messages: messages.map((message, index) => ({ ...(message as object), content: fill(index) })),
  });
  const key = `${source}\u0000${JSON.stringify(withTexts(() => ""))}`;
  if (key.length > longestSkeletonKey || key.includes(openMark) || key.includes(closeMark)) return undefined;
  let skeleton = skeletons.get(key);
  if (skeleton === undefined || skeleton === "seen") {
    // The oldest shape goes first (a Map iterates in insertion order).
    if (skeleton === undefined && skeletons.size >= keptSkeletons) {
      skeletons.delete(skeletons.keys().next().value!);
    }
    if (skeleton === undefined) {
      skeletons.set(key, "seen");
      return undefined;
    }
    skeleton = makeSkeleton(render(withTexts((index) => `${openMark}${index}${closeMark}`)), (probe) =>
      render(withTexts(probe)),
    );
    skeletons.set(key, skeleton);
    if (skeleton === null) textChangingSources.add(source);
  }
  if (skeleton === null) return undefined;
  // Used shapes move to the end, so a stream of new shapes evicts the least recently used first.
  skeletons.delete(key);
  skeletons.set(key, skeleton);
  let output = skeleton.parts[0]!;
  for (let index = 0; index < skeleton.texts.length; index++) {
    output += texts[skeleton.texts[index]!]! + skeleton.parts[index + 1]!;
  }
  return output;
}

function makeSkeleton(
  marked: string,
  renderProbe: (probe: (index: number) => string) => string,
): Skeleton | null {
  const parts: string[] = [];
  const texts: number[] = [];
  let from = 0;
  for (const match of marked.matchAll(markPattern)) {
    parts.push(marked.slice(from, match.index));
    texts.push(Number(match[1]));
    from = match.index + match[0].length;
  }
  parts.push(marked.slice(from));
  const probe = (index: number) => ` \t\n\u00a0<&>"'{{ x }}{% if %}${index}\r\n `;
  let expected = parts[0]!;
  for (let index = 0; index < texts.length; index++) expected += probe(texts[index]!) + parts[index + 1]!;
  return renderProbe(probe) === expected ? { parts, texts } : null;
}
