import { z } from "zod";
import type { Context } from "../../core/context.js";
import type { ModelOutputThunk } from "../../core/model-output-thunk.js";
import { PartialValidationResult, type StreamPartial, ValidationResult } from "../../core/requirement.js";
import { type CompletedJsonValue, JsonValueChunker } from "../chunking/json-value-chunker.js";
import { StandardRequirement } from "./standard-requirement.js";

/**
 * What one incremental parse of a reply says so far. The streaming check and the final check both run this
 * machine, the final one over the whole text, so a fail on a prefix is a fail on the whole reply: the
 * streaming check never rejects a reply the final check would accept.
 */
class JsonSchemaJudge {
  readonly #chunker = new JsonValueChunker();
  readonly #seenKeys = new Set<string>();
  readonly #schema: z.ZodType;
  readonly #shape: Readonly<Record<string, z.ZodType>> | null;
  #verdict: PartialValidationResult = new PartialValidationResult("unknown");
  #firstCharacter: string | null = null;

  constructor(schema: z.ZodType) {
    this.#schema = schema;
    this.#shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : null;
  }

  get ended(): boolean {
    return this.#chunker.ended;
  }

  /** Feed a delta; a fail or the final pass is kept, so later deltas cannot change a decided verdict. */
  feed(delta: string): PartialValidationResult {
    if (this.#verdict.success === "fail") return this.#verdict;
    if (this.#firstCharacter === null && this.#shape !== null) {
      this.#firstCharacter = /\S/.exec(delta)?.[0] ?? null;
      // An object schema accepts nothing but an object: any other first character already decides.
      if (this.#firstCharacter !== null && this.#firstCharacter !== "{") {
        this.#verdict = new PartialValidationResult("fail", {
          reason: `The output should be a JSON object but starts with ${JSON.stringify(this.#firstCharacter)}.`,
        });
        return this.#verdict;
      }
    }
    return this.#judge(this.#chunker.feed(delta));
  }

  /** The text is over: end the parse (a top-level number completes only here) and judge what it completed. */
  finish(): PartialValidationResult {
    if (this.#verdict.success === "fail") return this.#verdict;
    return this.#judge(this.#chunker.end());
  }

  #judge(completedValues: readonly CompletedJsonValue[]): PartialValidationResult {
    for (const completed of completedValues) {
      if (completed.key === null) {
        this.#verdict = this.#judgeWhole(completed.value);
      } else if (typeof completed.key === "string" && this.#shape !== null) {
        const member = this.#judgeMember(completed.key, completed.value);
        if (member !== null) this.#verdict = member;
      }
      if (this.#verdict.success === "fail") return this.#verdict;
    }
    const error = this.#chunker.error;
    if (error !== null) {
      this.#verdict = new PartialValidationResult("fail", {
        reason: `The output is not valid JSON: ${error.message}`,
      });
    }
    return this.#verdict;
  }

  #judgeMember(key: string, value: unknown): PartialValidationResult | null {
    if (this.#seenKeys.has(key)) {
      return new PartialValidationResult("fail", { reason: `The key "${key}" appears twice.` });
    }
    this.#seenKeys.add(key);
    // Own properties only: a key such as "constructor" or "toString" must not find Object.prototype's member.
    if (!Object.hasOwn(this.#shape!, key)) return null;
    const fieldSchema = this.#shape![key]!;
    const parsed = fieldSchema.safeParse(value);
    if (parsed.success) return null;
    return new PartialValidationResult("fail", {
      reason: `The JSON does not match: ${describeIssues(parsed.error, [key])}`,
    });
  }

  #judgeWhole(value: unknown): PartialValidationResult {
    const parsed = this.#schema.safeParse(value);
    if (parsed.success) return new PartialValidationResult("pass");
    return new PartialValidationResult("fail", {
      reason: `The JSON does not match: ${describeIssues(parsed.error, [])}`,
    });
  }
}

function describeIssues(error: z.ZodError, prefix: readonly PropertyKey[]): string {
  return error.issues
    .map((issue) => {
      const path = [...prefix, ...issue.path];
      return `${path.length > 0 ? path.map(String).join(".") : "(value)"}: ${issue.message}`;
    })
    .join("; ");
}

/**
 * A requirement that the whole output is one JSON value matching `schema` (what a grammar-constrained
 * generation produces; no code fences, nothing around it but whitespace), checked while the sample streams.
 * An incremental parser (@streamparser/json) reports each member of the top-level object as soon as it is
 * complete and runs the member's zod schema on it, so a syntax error, a wrong member or a repeated key
 * cancels the sample there; the complete value runs the whole schema. The final check replays the same
 * parse over the whole text, so the two never disagree (unlike schemaRequirement(), which also accepts
 * fenced blocks, and so cannot fail early on anything).
 */
export function jsonSchemaRequirement(
  schema: z.ZodType,
  description = "The output is JSON that matches the requested schema.",
): StandardRequirement {
  const judges = new WeakMap<ModelOutputThunk<unknown>, JsonSchemaJudge>();
  return new StandardRequirement(description, {
    validate: (context: Context) => {
      const output = context.lastOutput();
      if (output === null || output.value === null) {
        return new ValidationResult(false, { reason: "The context has no output to validate.", context });
      }
      const judge = new JsonSchemaJudge(schema);
      judge.feed(output.value);
      const verdict = judge.finish();
      if (verdict.success === "fail") return new ValidationResult(false, { reason: verdict.reason, context });
      if (!judge.ended || verdict.success !== "pass") {
        return new ValidationResult(false, {
          reason: "The JSON ends before its value is complete.",
          context,
        });
      }
      return new ValidationResult(true, { context });
    },
    streamValidate: (partial: StreamPartial) => {
      let judge = judges.get(partial.thunk);
      if (judge === undefined) {
        judge = new JsonSchemaJudge(schema);
        judges.set(partial.thunk, judge);
      }
      return judge.feed(partial.chunk);
    },
  });
}
