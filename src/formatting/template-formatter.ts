import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import nunjucks from "nunjucks";
import { CBlock } from "../core/cblock.js";
import { Component } from "../core/component.js";
import { ModelOutputThunk } from "../core/model-output-thunk.js";
import type { Span } from "../core/span.js";
import type { TemplateRepresentation } from "../core/template-representation.js";
import { ChatFormatter } from "./chat-formatter.js";
import { TemplateNotFoundError } from "./errors/template-not-found-error.js";
import { TemplateRenderError } from "./errors/template-render-error.js";
import { TemplateCache } from "./template-cache.js";
import { type LocatedTemplate, locateTemplate } from "./template-locator.js";

/** The templates shipped with tessera; resolved from this file so it works from src/ and dist/. */
export const builtInTemplateRoot = fileURLToPath(new URL("./templates/", import.meta.url));

export interface TemplateFormatterOptions {
  /** Template folders searched before the built-in one; the first folder with any match wins. */
  templatePaths?: readonly string[];
  /** Reuse compiled templates (default true). */
  useTemplateCache?: boolean;
  /** How many compiled templates the cache keeps (default 32). */
  cacheSize?: number;
}

interface CompiledTemplate {
  template: nunjucks.Template;
  /** Where it came from, for error messages and tests. */
  source: string;
  /** The template's own text (GenerationMetadata.promptTemplate). */
  text: string;
}

/** The template a component renders with and the variables it gets (GenerationMetadata.promptTemplate*). */
export interface TemplateUse {
  /** The template's source text. */
  template: string;
  /** The variables it was rendered with, after substitution (components printed, blocks as their text). */
  variables: Record<string, unknown>;
}

/**
 * Renders components with nunjucks: one `<ClassName>.njk` per component under `default/`, with
 * model-family folders that override it (the deepest folder whose simplified name appears in the
 * model id wins). Templates come from this package or the caller's own folders, never from a model
 * file: nunjucks is not a sandbox, so untrusted chat templates are rendered elsewhere.
 */
export class TemplateFormatter extends ChatFormatter {
  readonly modelId: string;
  readonly templateRoots: readonly string[];
  readonly #cache: TemplateCache<CompiledTemplate> | null;
  readonly #fileEnvironments = new Map<string, nunjucks.Environment>();
  // Inline templates treat undefined variables as errors: a typo in a template string would
  // otherwise silently vanish from the prompt.
  readonly #inlineEnvironment = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });

  constructor(modelId: string, options: TemplateFormatterOptions = {}) {
    super();
    this.modelId = modelId;
    this.templateRoots = [...(options.templatePaths ?? []), builtInTemplateRoot];
    this.#cache = options.useTemplateCache === false ? null : new TemplateCache(options.cacheSize ?? 32);
  }

  print(span: Span): string {
    const text = this.#stringify(span);
    return typeof text === "string" ? text : String(text);
  }

  /** The template `span` renders with and its variables; null for blocks and string representations. */
  templateUse(span: Span): TemplateUse | null {
    if (!Component.isInstance(span)) return null;
    const representation = span.formatForLlm();
    if (typeof representation === "string") return null;
    const owner = representation.obj ?? span;
    const componentName = (owner as object).constructor?.name ?? "component";
    const compiled = this.#compile(representation, span, componentName);
    const variables = this.#stringify(representation.args ?? {}) as Record<string, unknown>;
    return { template: compiled.text, variables };
  }

  /** The template file a component would render with (after overrides), or null for inline/string forms. */
  templateFor(component: Component<unknown>): LocatedTemplate | null {
    const representation = component.formatForLlm();
    if (typeof representation === "string" || representation.template) return null;
    const names = templateNames(representation, component);
    for (const root of this.templateRoots) {
      for (const name of names) {
        const located = locateTemplate(root, name, this.modelId);
        if (located !== null) return located;
      }
    }
    return null;
  }

  #stringify(value: unknown): unknown {
    if (value === null || value === undefined) return "";
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
    if (typeof value === "bigint") return value.toString();
    if (ModelOutputThunk.isInstance(value)) return value.value ?? "";
    if (value instanceof CBlock) return value.value ?? "";
    if (Component.isInstance(value)) return this.#render(value);
    if (Array.isArray(value)) return value.map((item) => this.#stringify(item));
    const prototype = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === null) {
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, this.#stringify(item)]),
      );
    }
    return String(value);
  }

  #render(component: Component<unknown>): string {
    const representation = component.formatForLlm();
    if (typeof representation === "string") return representation;
    const owner = representation.obj ?? component;
    const componentName = (owner as object).constructor?.name ?? "component";
    const args = this.#stringify(representation.args ?? {}) as Record<string, unknown>;
    const compiled = this.#compile(representation, component, componentName);
    try {
      return compiled.template.render(args);
    } catch (error) {
      throw new TemplateRenderError(componentName, compiled.source, error);
    }
  }

  #compile(representation: TemplateRepresentation, component: Component<unknown>, componentName: string) {
    if (representation.template) {
      const key = `inline:${representation.template}`;
      const cached = this.#cache?.get(key);
      if (cached) return cached;
      let compiled: CompiledTemplate;
      try {
        // Compiled eagerly so syntax errors surface here, with the component named.
        const template = new nunjucks.Template(
          representation.template,
          this.#inlineEnvironment,
          undefined,
          true,
        );
        compiled = { template, source: "inline template", text: representation.template };
      } catch (error) {
        throw new TemplateRenderError(componentName, "inline template", error);
      }
      this.#cache?.set(key, compiled);
      return compiled;
    }

    const names = templateNames(representation, component);
    const key = `file:${componentName}:${names.join(",")}`;
    const cached = this.#cache?.get(key);
    if (cached) return cached;
    const located = this.templateFor(component);
    if (located === null) throw new TemplateNotFoundError(componentName, names, this.templateRoots);
    const source = `${located.root}${located.relativePath}`;
    let compiled: CompiledTemplate;
    try {
      compiled = {
        template: this.#environmentFor(located.root).getTemplate(located.relativePath, true),
        source,
        text: readFileSync(join(located.root, located.relativePath), "utf8"),
      };
    } catch (error) {
      throw new TemplateRenderError(componentName, source, error);
    }
    this.#cache?.set(key, compiled);
    return compiled;
  }

  #environmentFor(root: string): nunjucks.Environment {
    let environment = this.#fileEnvironments.get(root);
    if (environment === undefined) {
      // autoescape off: these are prompts, not HTML. The loader lets templates include each other.
      environment = new nunjucks.Environment(new nunjucks.FileSystemLoader(root, { noCache: true }), {
        autoescape: false,
      });
      this.#fileEnvironments.set(root, environment);
    }
    return environment;
  }
}

/** The representation's template order with `*` as the component's class name (default: just that). */
function templateNames(representation: TemplateRepresentation, component: Component<unknown>): string[] {
  const owner = (representation.obj ?? component) as object;
  const className = owner.constructor?.name ?? "Component";
  const order = representation.templateOrder ?? ["*"];
  return [...new Set(order.map((name) => (name === "*" ? className : name)))];
}
