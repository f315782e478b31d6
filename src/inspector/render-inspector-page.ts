// Turns an InspectorReport into one self-contained HTML file: the page template (CSS and script inline,
// no network access; its Content-Security-Policy forbids any) with the report embedded as JSON.
import { readFileSync } from "node:fs";
import type { InspectorReport } from "./inspector-report.js";
import type { InspectorTreeReport } from "./inspector-tree-report.js";

let template: string | undefined;

function pageTemplate(): string {
  // Next to this module in src/ (tests) and in dist/ (copied there by scripts/post-build.mjs).
  template ??= readFileSync(new URL("./inspector-page.html", import.meta.url), "utf8");
  return template;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * JSON that is safe inside a <script> element: "<" is written as \u003c so that neither "</script>" nor
 * "<!--" in a prompt or a token can end the element early. JSON.parse reads it back unchanged.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function fill(title: string, data: InspectorReport | InspectorTreeReport): string {
  // Function replacers: a "$&" or "$1" in the data must not be read as a replacement pattern.
  return pageTemplate()
    .replaceAll("__TESSERA_TITLE__", () => escapeHtml(title))
    .replace('"__TESSERA_REPORT__"', () => embedJson(data));
}

/** The complete HTML page for a report. */
export function renderInspectorPage(report: InspectorReport): string {
  return fill(report.title, report);
}

/**
 * One page for a whole branch tree: the same template and script, with the tree as navigation; picking
 * a branch draws its path as the single-report page draws a report, all from the embedded data.
 */
export function renderInspectorTreePage(tree: InspectorTreeReport): string {
  return fill(tree.title, tree);
}
