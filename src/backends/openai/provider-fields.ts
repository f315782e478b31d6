import { Component } from "../../core/component.js";
import { ProviderFieldsTargetError } from "../../core/errors/provider-fields-target-error.js";
import type { Span } from "../../core/span.js";

/** Every OpenAI-compatible server is reached through the "openai" wire family, as in Mellea. */
const wireFamily = "openai";

/**
 * The extra wire fields a span's representation declares for `provider`: the "*" entry, then the provider's
 * own (or the "openai" wire-family alias), the more specific winning. Null when it declares none. Fields that
 * name only other providers, with no "*", are a mistake worth stopping for: they would silently vanish.
 */
export function providerFieldsFor(span: Span, provider: string): Record<string, unknown> | null {
  if (!Component.isInstance(span)) return null;
  const representation = span.formatForLlm();
  if (typeof representation === "string" || !representation.providerFields) return null;
  const declared = representation.providerFields;
  const targets = Object.keys(declared);
  if (targets.length === 0) return null;
  const accepted = provider === wireFamily ? [wireFamily] : [provider, wireFamily];
  const hit = accepted.filter((target) => target in declared);
  if (hit.length === 0 && !("*" in declared)) {
    const owner = representation.obj ?? span;
    const componentName = (owner as object).constructor?.name ?? "component";
    throw new ProviderFieldsTargetError(componentName, targets, provider, accepted);
  }
  // Least specific first, so the provider's own entry overrides the wire family's and both override "*".
  return Object.assign({}, declared["*"], ...[...hit].reverse().map((target) => declared[target]));
}
