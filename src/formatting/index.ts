// Component templates (nunjucks) and the formatters backends use to build prompts and messages.
export { ChatFormatter } from "./chat-formatter.js";
export { TemplateNotFoundError } from "./errors/template-not-found-error.js";
export { TemplateRenderError } from "./errors/template-render-error.js";
export { UncomputedOutputError } from "./errors/uncomputed-output-error.js";
export type { Formatter } from "./formatter.js";
export { TemplateCache } from "./template-cache.js";
export {
  builtInTemplateRoot,
  TemplateFormatter,
  type TemplateFormatterOptions,
  type TemplateUse,
} from "./template-formatter.js";
export { type LocatedTemplate, locateTemplate, simplifyModelName } from "./template-locator.js";
export { templateUseOf } from "./template-use-of.js";
