import { MissingUserVariableError } from "../errors/missing-user-variable-error.js";

const placeholder = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Replace each `{{name}}` in `text` with `variables[name]`. Plain substitution, not a template engine: values
 * are data, so a value containing `{{...}}` is inserted as-is and never evaluated. A placeholder without a
 * variable is a MissingUserVariableError. Without variables the text is returned untouched.
 */
export function substituteUserVariables(
  text: string,
  variables: Readonly<Record<string, string>> | null,
): string {
  if (variables === null) return text;
  return text.replace(placeholder, (_match, name: string) => {
    if (!Object.hasOwn(variables, name)) throw new MissingUserVariableError(name, Object.keys(variables));
    return String(variables[name]);
  });
}
