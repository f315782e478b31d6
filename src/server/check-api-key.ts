import { InvalidApiKeyError } from "./errors/invalid-api-key-error.js";

// Visible ASCII, with spaces allowed inside but not at the ends (clients' and Node's header handling trims
// them, so such a key could never be matched).
const maxKeyLength = 8192;
const sendableKey = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The API key, checked before anything listens: a key that would guard nothing or that no client could
 * send is refused with InvalidApiKeyError naming `source`. Undefined (no key) passes.
 */
export function checkApiKey(key: unknown, source: string): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== "string")
    throw new InvalidApiKeyError(source, `must be a string, but is ${typeof key}.`);
  if (key === "") {
    throw new InvalidApiKeyError(
      source,
      "is empty, which would let every request in while the server looks guarded. " +
        `Give a key, or ${source.startsWith("TESSERA_") ? "unset" : "leave out"} ${source} to serve without one.`,
    );
  }
  // Node refuses requests whose headers pass 16 KiB (431), and some clients less: such a key never arrives.
  if (key.length > maxKeyLength) {
    throw new InvalidApiKeyError(
      source,
      `is ${key.length} characters long, over the ${maxKeyLength} tessera accepts: Node refuses requests whose ` +
        "headers pass 16 KiB, and some clients and proxies stop sooner, so such a key would lock clients out. " +
        `Use a key of at most ${maxKeyLength} characters.`,
    );
  }
  if (!sendableKey.test(key)) {
    throw new InvalidApiKeyError(
      source,
      "has spaces at its ends or characters outside visible ASCII, which no client can send intact in an " +
        "Authorization header, so every request would be refused. Use visible ASCII characters only.",
    );
  }
  return key;
}
