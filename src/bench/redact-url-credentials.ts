// A URL's user and password (a proxy's `https://user:pass@host/v1`, given to --remote) must not reach an
// error message, a printed command or a results file: those end up in CI logs and committed folders.

/** Credentials in the authority of a URL anywhere in a text, with or without a scheme (`//user@host`). */
const credentials = /((?:[a-z][a-z0-9+.-]*:)?\/\/)[^\s/?#]*@/gi;

/**
 * `text` with the user and password of every URL in it replaced by `***`: `http://***@host/v1`. Text
 * without credentials comes back unchanged. Works on strings no URL parser accepts (a bad port, a comma
 * in a password that split a --remote spec), which is where a message is most likely to quote them.
 */
export function redactCredentialsIn(text: string): string {
  return text.replace(credentials, "$1***@");
}

/**
 * `url` as messages and results may show it. A URL that parses keeps its form (`http://***:***@host/`);
 * one without credentials comes back unchanged, byte for byte.
 */
export function redactedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactCredentialsIn(url);
  }
  if (parsed.username === "" && parsed.password === "") return url;
  parsed.username = "***";
  if (parsed.password !== "") parsed.password = "***";
  return parsed.href;
}
