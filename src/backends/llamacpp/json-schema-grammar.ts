import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { findPackageFolder } from "../../support/package-folders.js";
import { GrammarError } from "./errors/grammar-error.js";
import { type GrammarJsonSchema, normalizeJsonSchema } from "./json-schema-normalizer.js";

type GrammarGenerator = (schema: GrammarJsonSchema, options: { allowNewLines: boolean }) => string;

let generatorLoad: Promise<GrammarGenerator> | undefined;

// node-llama-cpp (pinned to an exact version in package.json) ships a JSON-schema → GBNF generator that
// its public API only exposes behind a loaded Llama instance. The pure function is imported by file URL,
// which the package's `exports` map does not restrict; a missing file means node-llama-cpp changed.
function loadGenerator(): Promise<GrammarGenerator> {
  generatorLoad ??= (async () => {
    const root = findPackageFolder("node-llama-cpp");
    const file =
      root === undefined
        ? undefined
        : join(root, "dist", "utils", "gbnfJson", "getGbnfGrammarForGbnfJsonSchema.js");
    try {
      if (file === undefined) throw new Error("node-llama-cpp is not installed");
      const module = (await import(pathToFileURL(file).href)) as {
        getGbnfGrammarForGbnfJsonSchema: GrammarGenerator;
      };
      return module.getGbnfGrammarForGbnfJsonSchema;
    } catch (error) {
      generatorLoad = undefined;
      throw new GrammarError(
        "",
        `node-llama-cpp's JSON-schema grammar generator could not be loaded from ${file ?? "node_modules"} ` +
          `(${(error as Error).message}); reinstall node-llama-cpp at the version package.json pins`,
      );
    }
  })();
  return generatorLoad;
}

// node-llama-cpp's number rules allow 16-digit integers (beyond Number.MAX_SAFE_INTEGER, which zod's
// .int() rejects) and 16-digit exponents (1e999 parses to Infinity). These bounded rules always parse to
// finite numbers, and integers to safe ones.
const numberRules: Record<string, string> = {
  "integer-number-rule": '"-"? ("0" | [1-9] [0-9]{0,14})',
  "fractional-number-rule": '"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? [0-9]{1,2})?',
};

/**
 * A GBNF grammar for JSON documents matching `jsonSchema`, whose root rule is `rootName`. The document
 * ends right after the JSON value (node-llama-cpp appends newlines it uses as a stop trigger; they are
 * removed), so a model under this grammar can only end the generation once the value is complete.
 */
export async function grammarForJsonSchema(jsonSchema: unknown, rootName = "root"): Promise<string> {
  // The same format or tool set is usually asked for again and again; the conversion is pure.
  const key = `${rootName}\u0000${JSON.stringify(jsonSchema)}`;
  const cached = grammarCache.get(key);
  if (cached !== undefined) return cached;
  const grammar = await convert(jsonSchema, rootName);
  if (grammarCache.size >= grammarCacheSize) grammarCache.delete(grammarCache.keys().next().value!);
  grammarCache.set(key, grammar);
  return grammar;
}

const grammarCache = new Map<string, string>();
const grammarCacheSize = 64;

async function convert(jsonSchema: unknown, rootName: string): Promise<string> {
  const normalized = normalizeJsonSchema(jsonSchema);
  const generate = await loadGenerator();
  const generated = generate(normalized, { allowNewLines: false });
  const lines = generated.split("\n").map((line) => {
    if (line.startsWith("root ::= ")) {
      const body = line.slice("root ::= ".length).replace(/ "(\\n)+" \[\\n\]\*$/, "");
      return `${rootName} ::= ${body}`;
    }
    const name = line.slice(0, line.indexOf(" ::= "));
    return numberRules[name] !== undefined ? `${name} ::= ${numberRules[name]}` : line;
  });
  return lines.join("\n");
}

/** The JSON schema of a zod type, as the grammar generator needs it. */
export function jsonSchemaOfZod(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { unrepresentable: "throw" }) as Record<string, unknown>;
}
