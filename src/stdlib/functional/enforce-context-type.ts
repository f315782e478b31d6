import type { Context } from "../../core/context.js";
import { ContextTypeMismatchError } from "../../core/errors/context-type-mismatch-error.js";

/**
 * The context type flowing out of a function must equal the one flowing in (Mellea's convention, its
 * issue #1522): a chat that silently became a simple context would drop its history. The exact class is
 * compared, so a subclass must come back as itself. `allowed` is the caller's allowContextTypeChange.
 */
export function enforceContextType(input: Context, outputs: readonly Context[], allowed: boolean): void {
  if (allowed) return;
  for (const output of outputs) {
    if (output.constructor !== input.constructor) {
      throw new ContextTypeMismatchError(input.constructor.name, output.constructor.name);
    }
  }
}
