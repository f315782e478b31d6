// A URL's user and password (a proxy's `https://user:pass@host/v1`, given to --remote) must not reach an
// error message, a printed command or a results file: those end up in CI logs and committed folders.

/**
 * The userinfo of a URL in a text: `//`, at the start of the text, after whitespace or a quote, or right
 * after a scheme, then at least one character up to the last `@` before the path. Linear: `//` anchors
 * each try. A `//` inside a path, query or fragment (`https://h//@scope/pkg`, `?next=//u@x`) is not one.
 * Userinfo already redacted (`***`, `***:***`) is left as it is, so redacting twice changes nothing.
 */
const userinfo = /(?<=^|[\s'"(<]|[a-z][a-z0-9+.-]*:)\/\/(?!\*\*\*(?::\*\*\*)?@)[^\s/?#]+@/gi;
/** A piece that starts like an absolute URL, after any opening quotes or brackets: its prefix and the URL. */
const urlStart = /^([\s'"(<[{]*)([a-z][a-z0-9+.-]*:.*)$/is;
/**
 * Scheme, slashes (either way, any number: what a URL parser accepts) and userinfo up to an `@`, for a piece
 * no parser accepts (a bad port): only when nothing before the `@` belongs to a path or a template.
 */
const unparsedUserinfo = /^([a-z][a-z0-9+.-]*:)([\\/]*)(?!\*\*\*(?::\*\*\*)?@)[^\\/?#$<{\s]+@/i;

/**
 * `text` with the user and password of every URL in it replaced by `***` (`http://***@host/v1`); a user
 * name alone is redacted too. Text with no URL credentials comes back unchanged, byte for byte. Besides
 * `scheme://user:pass@host`, each word and comma-separated part that a URL parser reads as credentials
 * (backslashes, one slash, no slash) is redacted, and one that no parser accepts (a bad port) loses its
 * userinfo all the same.
 */
export function redactCredentialsIn(text: string): string {
  return redactPieces(text.replace(userinfo, "//***@"), /([\s,=]+)/);
}

/**
 * One command-line argument as `redactCredentialsIn` would show it, except that its spaces and tabs do not
 * end a URL: an argument is one word however it was quoted (`--remote="https://u:pa ss@h/v1,m"`).
 */
export function redactCredentialsInArgument(argument: string): string {
  // The whole-text form first: a URL after other words in one argument (`--label "via http:u:pw@h"`) is
  // only found by its whitespace split.
  return redactPieces(redactCredentialsIn(argument), /([,=]+)/);
}

function redactPieces(text: string, separators: RegExp): string {
  if (!text.includes("@")) return text;
  return text
    .split(separators)
    .map((piece) => (piece.includes("@") ? redactedPiece(piece) : piece))
    .join("");
}

function redactedPiece(piece: string): string {
  const match = urlStart.exec(piece);
  if (match === null) return piece;
  const [, before = "", url = ""] = match;
  if (!URL.canParse(url)) return before + url.replace(unparsedUserinfo, "$1$2***@");
  const parsed = new URL(url);
  if (!hasCredentials(parsed)) return piece;
  if (parsed.username === "***" && (parsed.password === "" || parsed.password === "***")) return piece;
  return before + blanked(parsed);
}

function hasCredentials(url: URL): boolean {
  return url.username !== "" || url.password !== "";
}

/** The URL's href with its user (and password, when it has one) as `***`. */
function blanked(url: URL): string {
  url.username = "***";
  if (url.password !== "") url.password = "***";
  return url.href;
}

/**
 * `url` as messages and results may show it. A URL that parses keeps its form (`http://***:***@host/`); one
 * without credentials comes back unchanged, byte for byte; any other URL in the string is redacted too.
 */
export function redactedUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  return redactCredentialsInArgument(parsed !== null && hasCredentials(parsed) ? blanked(parsed) : url);
}

/**
 * A --remote spec (`<base URL>,<model>[,<variable>]`) as a message may show it: redacted as one argument,
 * and when its base URL still does not parse with an `@` left in the spec (a password cut at a comma),
 * only what follows its last `@`.
 */
export function redactedRemoteSpec(spec: string): string {
  const redacted = redactCredentialsInArgument(spec);
  const base = redacted.split(",")[0]!.trim();
  if (URL.canParse(base) || !redacted.includes("@")) return redacted;
  return `***@${redacted.slice(redacted.lastIndexOf("@") + 1)}`;
}
