import { llama2ChatTemplate, llama3ChatTemplate } from "../../gguf/chat-templates.js";

/**
 * Chat templates known by name. "chatml" is the fallback for models whose GGUF has no
 * `tokenizer.chat_template`: it is the most widely trained-on format and needs no special tokens.
 */
export const builtinChatTemplates = {
  chatml:
    "{% for message in messages %}" +
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
    "{% endfor %}" +
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
  llama2: llama2ChatTemplate,
  llama3: llama3ChatTemplate,
} as const;

export type BuiltinChatTemplateName = keyof typeof builtinChatTemplates;

/** The template used when a model has none. */
export const fallbackChatTemplateName: BuiltinChatTemplateName = "chatml";

export function isBuiltinChatTemplateName(name: string): name is BuiltinChatTemplateName {
  return Object.hasOwn(builtinChatTemplates, name);
}

const builtinSources: ReadonlySet<string> = new Set(Object.values(builtinChatTemplates));

/**
 * True for a template that is one of the built-ins byte for byte. Those are tessera's own text, not a
 * model file's, so they may be rendered in this thread; any other source, however close, is untrusted.
 */
export function isBuiltinChatTemplateSource(source: string): boolean {
  return builtinSources.has(source);
}
