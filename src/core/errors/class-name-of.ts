// How an error message names an object it was given: its class, with its article. Shared so every error
// that says "received a …" speaks alike and survives the same odd values.

/**
 * "an Object", "a Map", "an Int32Array", "a URL", "a Uint8Array" ("U" names say "you"); "an object" for
 * a null prototype or an anonymous class. A Proxy's trap may throw on `constructor`: that is "an object"
 * too, since a message must still be made.
 */
export function classNameOf(value: object): string {
  let kind: unknown;
  try {
    kind = (value as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    kind = undefined;
  }
  const name = typeof kind === "string" && kind !== "" ? kind : "object";
  return `${/^[aeio]/i.test(name) ? "an" : "a"} ${name}`;
}
