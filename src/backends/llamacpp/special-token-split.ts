// llama.cpp's first step in tokenizing a text with special tokens parsed (llama_vocab::impl::
// tokenizer_st_partition), repeated here: the text is cut at every occurrence of every special token's
// vocabulary text (control, user-defined and unknown tokens), longest texts first, each occurrence left
// to right. Each remaining piece of text is then tokenized on its own, with no state carried from one
// piece to the next, so a prompt's tokens are its pieces' tokens in order (PieceTokenizer).
//
// Only where the split is certain to be llama.cpp's: every special text must be valid UTF-8 (JavaScript
// searches UTF-16; a valid UTF-8 needle matches the same characters in either), and no two texts of the
// same byte length may overlap or be equal, because llama.cpp orders tokens of equal length with an
// unstable sort and the first one processed would win an overlap. Nor where a special token strips the
// whitespace beside it (the lstrip / rstrip attributes llama.cpp gives phi-3's special tokens and some
// BERT models' mask): the split below does strip as llama.cpp's code reads, but no vocabulary the tests
// can load has such a token, so the result could not be checked against llama.cpp's. `SpecialTokenSplit.of`
// returns null in each of these cases, and the caller tokenizes whole texts as before.

/** A piece of the split: text to tokenize on its own, or a special token. */
export type SplitPiece = { readonly text: string } | { readonly token: number };

interface SpecialText {
  readonly id: number;
  readonly text: string;
  readonly lstrip: boolean;
  readonly rstrip: boolean;
}

// llama_token_attr bits (llama.h).
const attributeLstrip = 1 << 7;
const attributeRstrip = 1 << 8;

/** C's isspace in the "C" locale, which llama.cpp's partition uses on each byte. */
function isCSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

// ignoreBOM: a special text that starts with U+FEFF keeps it, as llama.cpp compares bytes.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export class SpecialTokenSplit {
  /** In llama.cpp's processing order: longest UTF-8 text first. */
  readonly #tokens: readonly SpecialText[];
  /**
   * Texts by their first UTF-16 unit, then their length in units: to find which tokens occur in a text,
   * each place where a first unit occurs is looked up once per length, not once per token (Llama 3 has
   * 256 special tokens starting with "<", of about twenty lengths).
   */
  readonly #byFirstUnit: ReadonlyMap<number, ReadonlyMap<number, ReadonlyMap<string, SpecialText>>>;

  private constructor(tokens: SpecialText[]) {
    this.#tokens = tokens;
    const byFirstUnit = new Map<number, Map<number, Map<string, SpecialText>>>();
    for (const token of tokens) {
      const unit = token.text.charCodeAt(0);
      const byLength = byFirstUnit.get(unit) ?? new Map<number, Map<string, SpecialText>>();
      const texts = byLength.get(token.text.length) ?? new Map<string, SpecialText>();
      texts.set(token.text, token);
      byLength.set(token.text.length, texts);
      byFirstUnit.set(unit, byLength);
    }
    this.#byFirstUnit = byFirstUnit;
  }

  /**
   * The split of a vocabulary whose special tokens are given as the addon lists them, or null where this
   * file cannot be sure to split as llama.cpp does (see the file's comment).
   */
  static of(
    special: { ids: Int32Array; attributes: Uint32Array; texts: readonly Uint8Array[] },
    /** Split at lstrip / rstrip tokens too: for the split's own tests, which check it by hand. */
    options: { allowStrip?: boolean } = {},
  ): SpecialTokenSplit | null {
    const tokens: Array<SpecialText & { bytes: number }> = [];
    for (let index = 0; index < special.ids.length; index++) {
      const bytes = special.texts[index]!;
      let text: string;
      try {
        text = strictUtf8.decode(bytes);
      } catch {
        return null;
      }
      // An empty text is never found (std::string::find of "" would match everywhere: not a case to guess).
      if (text.length === 0) return null;
      // A lone surrogate in a prompt reaches llama.cpp as U+FFFD (N-API's UTF-8 conversion), and split()
      // converts it the same way; a special text containing U+FFFD itself is left out of that reasoning.
      if (text.includes("\uFFFD")) return null;
      const attributes = special.attributes[index]!;
      if ((attributes & (attributeLstrip | attributeRstrip)) !== 0 && !options.allowStrip) return null;
      tokens.push({
        id: special.ids[index]!,
        text,
        lstrip: (attributes & attributeLstrip) !== 0,
        rstrip: (attributes & attributeRstrip) !== 0,
        bytes: bytes.length,
      });
    }
    const byLength = new Map<number, string[]>();
    for (const token of tokens) {
      const list = byLength.get(token.bytes) ?? [];
      list.push(token.text);
      byLength.set(token.bytes, list);
    }
    for (const texts of byLength.values()) if (overlapping(texts)) return null;
    // Stable here; where llama.cpp's order of equal lengths is unknown, no two of them interact (above).
    tokens.sort((a, b) => b.bytes - a.bytes);
    return new SpecialTokenSplit(tokens.map(({ bytes: _bytes, ...token }) => token));
  }

  /** The text's pieces, as llama.cpp's partition leaves them (text pieces are never empty). */
  split(prompt: string): SplitPiece[] {
    // llama.cpp sees the UTF-8 that N-API makes of the string, where a lone surrogate is U+FFFD.
    const text = (prompt as string & { toWellFormed(): string }).toWellFormed();
    type Fragment = { start: number; end: number } | { token: number };
    let fragments: Fragment[] = text.length === 0 ? [] : [{ start: 0, end: text.length }];
    for (const special of this.#occurring(text)) {
      const next: Fragment[] = [];
      const length = special.text.length;
      // The first occurrence at or after the last search's start. Fragments come in text order and each
      // search starts past the last match, so a known occurrence at or after `start` is still the first:
      // the text is scanned about once per token, not once per fragment (that was quadratic: 5 s for a
      // 127 KB message of 4,000 special texts, against 66 ms for llama.cpp's whole-text tokenize).
      // undefined: not searched yet; -1: no occurrence after the last search's start.
      let known: number | undefined;
      const firstFrom = (start: number) => {
        if (known === undefined || (known >= 0 && known < start)) known = text.indexOf(special.text, start);
        return known;
      };
      for (const fragment of fragments) {
        if ("token" in fragment) {
          next.push(fragment);
          continue;
        }
        let { start } = fragment;
        const { end } = fragment;
        while (true) {
          // llama.cpp searches the fragment alone (a string_view ending at its end).
          const match = firstFrom(start);
          if (match < 0 || match + length > end) {
            if (end > start) next.push({ start, end });
            break;
          }
          if (match > start) {
            let leftEnd = match;
            if (special.lstrip) while (leftEnd > start && isCSpace(text.charCodeAt(leftEnd - 1))) leftEnd--;
            if (leftEnd > start) next.push({ start, end: leftEnd });
          }
          next.push({ token: special.id });
          start = match + length;
          if (special.rstrip) while (start < end && isCSpace(text.charCodeAt(start))) start++;
        }
      }
      fragments = next;
    }
    return fragments.map((fragment) =>
      "token" in fragment ? { token: fragment.token } : { text: text.slice(fragment.start, fragment.end) },
    );
  }

  /**
   * The special tokens whose text occurs in `text`, in processing order. A token absent from the whole
   * text cannot cut any piece of it (pieces are parts of the text), so only these are searched piece by
   * piece: Llama 3's vocabulary has 256 special tokens, a chat prompt a handful of them.
   */
  #occurring(text: string): SpecialText[] {
    const found = new Set<SpecialText>();
    for (const [unit, byLength] of this.#byFirstUnit) {
      const first = String.fromCharCode(unit);
      for (let at = text.indexOf(first); at >= 0; at = text.indexOf(first, at + 1)) {
        for (const [length, texts] of byLength) {
          const candidate = texts.get(text.slice(at, at + length));
          if (candidate !== undefined) found.add(candidate);
        }
      }
    }
    return this.#tokens.filter((token) => found.has(token));
  }
}

/** True when two texts are equal or one's end is the other's start (an occurrence of each could overlap). */
function overlapping(texts: readonly string[]): boolean {
  if (new Set(texts).size !== texts.length) return true;
  const prefixes = new Set<string>();
  for (const text of texts) for (let cut = 1; cut < text.length; cut++) prefixes.add(text.slice(0, cut));
  for (const text of texts) {
    for (let cut = 1; cut < text.length; cut++) if (prefixes.has(text.slice(cut))) return true;
  }
  return false;
}
