// A URL's user and password (a proxy's `https://user:pass@host/v1`, given to --remote) must not reach an
// error message, a printed command or a results file: those end up in CI logs and committed folders.

/**
 * The userinfo of a URL in a text: `//`, at the start of the text, after whitespace or a quote, or right
 * after a scheme, then at least one character up to the last `@` before the path. Linear: `//` anchors
 * each try. A `//` inside a path, query or fragment (`https://h//@scope/pkg`, `?next=//u@x`) is not one.
 */
// Userinfo already redacted (`***`, `***:***`) is left as it is, so redacting twice changes nothing.
const userinfo = /(?<=^|[\s'"(<]|[a-z][a-z0-9+.-]*:)\/\/(?!\*\*\*(?::\*\*\*)?@)[^\s/?#]+@/gi;
/** A piece that starts like a URL (`scheme:`) and has an `@` in it. */
const schemeThenAt = /^([a-z][a-z0-9+.-]*:).*@/is;

/**
 * `text` with the user and password of every URL in it replaced by `***` (`http://***@host/v1`); a user name
 * alone is redacted too. Text with no URL credentials in it comes back unchanged. Besides the usual
 * `scheme://user:pass@host`, each word and comma-separated part of one that a URL parser reads as
 * credentials (backslashes, one slash, a tab or space inside) is redacted, and one that no parser accepts
 * (a bad port) loses everything from its scheme to its last `@`.
 */
export function redactCredentialsIn(text: string): string {
  return text
    .replace(userinfo, "//***@")
    .split(/([\s,=]+)/)
    .map((piece) => (piece.includes("@") ? redactedPiece(piece) : piece))
    .join("");
}

function redactedPiece(piece: string): string {
  let parsed: URL;
  try {
    parsed = new URL(piece);
  } catch {
    return piece.replace(schemeThenAt, "$1***@");
  }
  if (parsed.username === "" && parsed.password === "") return piece;
  parsed.username = "***";
  if (parsed.password !== "") parsed.password = "***";
  return parsed.href;
}

/**
 * `url` as messages and results may show it. A URL that parses keeps its form (`http://***:***@host/`); one
 * without credentials comes back unchanged, byte for byte; any other URL in the string is redacted too.
 */
export function redactedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactCredentialsIn(url);
  }
  if (parsed.username === "" && parsed.password === "") return redactCredentialsIn(url);
  parsed.username = "***";
  if (parsed.password !== "") parsed.password = "***";
  return redactCredentialsIn(parsed.href);
}

/**
 * A --remote spec (`<base URL>,<model>[,<variable>]`) as a message may show it: its URL redacted, or, when
 * the URL does not parse (a comma in a password splits the spec there), everything up to its last `@`.
 */
export function redactedRemoteSpec(spec: string): string {
  const [base = "", ...rest] = spec.split(",");
  try {
    new URL(base.trim());
    return [redactedUrl(base.trim()), ...rest].join(",");
  } catch {
    const at = spec.lastIndexOf("@");
    return at === -1 ? spec : `***@${spec.slice(at + 1)}`;
  }
}
