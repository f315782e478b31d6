// tessera serve answers an error by the `kind` every TesseraError carries, so it needs no backend's error
// classes: the bodies below are the ones the server gave when it imported llama.cpp's classes, and an error
// class the server has never heard of is answered by its kind alone.
import { describe, expect, it } from "vitest";
import { GrammarError } from "../../src/backends/llamacpp/errors/grammar-error.js";
import { InvalidOptionError } from "../../src/backends/llamacpp/errors/invalid-option-error.js";
import { UnsupportedJsonSchemaError } from "../../src/backends/llamacpp/errors/unsupported-json-schema-error.js";
import { checkGrammarLimits } from "../../src/backends/llamacpp/grammar-limits.js";
import { OpenAIHttpError } from "../../src/backends/openai/errors/openai-http-error.js";
import { ContextOverflowError } from "../../src/core/errors/context-overflow-error.js";
import type { ErrorKind } from "../../src/core/errors/error-kind.js";
import { InvalidImageError } from "../../src/core/errors/invalid-image-error.js";
import { InvalidModelOptionError } from "../../src/core/errors/invalid-model-option-error.js";
import { TesseraError } from "../../src/core/errors/tessera-error.js";
import { UnknownModelOptionError } from "../../src/core/errors/unknown-model-option-error.js";
import { UnsupportedInputError } from "../../src/core/errors/unsupported-input-error.js";
import { ModelNotFoundError } from "../../src/server/errors/model-not-found-error.js";
import { ServerBusyError } from "../../src/server/errors/server-busy-error.js";
import { toErrorResponse } from "../../src/server/openai-error-response.js";

/** An error class of some backend the server does not know, carrying only a kind. */
class ForeignBackendError extends TesseraError {
  override readonly kind: ErrorKind;
  constructor(kind: ErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

function answer(error: unknown) {
  const { status, body, headers } = toErrorResponse(error);
  return { status, ...body.error, headers };
}

describe("the server's answer to a library error", () => {
  it("keeps the status, field and code it gave before errors had kinds", () => {
    expect(answer(new ContextOverflowError(90, 64, 10))).toEqual({
      status: 400,
      message:
        "This model's context holds 64 tokens per request, but the prompt is 90 tokens and max_tokens asks " +
        "for 10 more (100 in all). Shorten the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
      headers: {},
    });
    expect(answer(new UnsupportedInputError("images", "the model has no vision projector"))).toMatchObject({
      status: 400,
      message: "The messages contain images, which the served model cannot take. Remove those content parts.",
      param: "messages",
      code: "unsupported_input",
    });
    const schema = new UnsupportedJsonSchemaError("#/properties/a", "not", "negation");
    expect(answer(schema)).toMatchObject({ status: 400, message: schema.message, param: "response_format" });
    expect(answer(schema).code).toBe("unsupported_schema");
    expect(answer(new InvalidOptionError("topP", "a number in (0, 1]", 2))).toMatchObject({
      status: 400,
      message: "Expected a number in (0, 1] for top_p but received 2. Nothing was started.",
      param: "top_p",
      code: "invalid_value",
    });
    expect(answer(new InvalidModelOptionError("temperature", -1, "use a value >= 0"))).toMatchObject({
      message: 'Invalid value for request field "temperature": received -1; use a value >= 0.',
      param: "temperature",
      code: "invalid_value",
    });
    const grammar = new GrammarError("root ::= x", "undefined rule x");
    expect(answer(grammar)).toMatchObject({ status: 400, message: grammar.message, param: null });
    const unknown = new UnknownModelOptionError(["topQ"], ["topP"]);
    expect(answer(unknown)).toMatchObject({ status: 400, param: null, code: "invalid_value" });
    expect(answer(new InvalidImageError("not a PNG"))).toMatchObject({
      param: "messages",
      code: "invalid_media",
    });
    expect(answer(new ModelNotFoundError("gpt-4o", ["tiny"]))).toMatchObject({
      status: 404,
      param: "model",
      code: "model_not_found",
    });
    expect(answer(new ServerBusyError(2, 4))).toMatchObject({
      status: 503,
      type: "server_busy",
      code: "overloaded",
      headers: { "retry-after": "1" },
    });
    expect(answer(new Error("boom"))).toMatchObject({
      status: 500,
      message: "The generation failed: boom",
      type: "server_error",
      code: "internal_error",
    });
  });

  it("answers an error class it does not know by its kind alone", () => {
    expect(answer(new ForeignBackendError("context-overflow", "Too long."))).toMatchObject({
      status: 400,
      message: "Too long.",
      param: "messages",
      code: "context_length_exceeded",
    });
    expect(answer(new ForeignBackendError("unsupported-schema", "No."))).toMatchObject({
      status: 400,
      param: "response_format",
    });
    expect(answer(new ForeignBackendError("busy", "Later."))).toMatchObject({
      status: 503,
      code: "overloaded",
    });
    expect(answer(new ForeignBackendError("internal", "Bug."))).toMatchObject({
      status: 500,
      code: "internal_error",
    });
    // An upstream that rate-limits a proxied request is "busy" to tessera serve's own clients too.
    const limited = new OpenAIHttpError("http://upstream/v1", 429, "", null);
    expect(limited.kind).toBe("busy");
    expect(answer(limited).status).toBe(503);
  });

  it("answers a kind outside the union, or none, as an internal 500 (review of issue 13)", () => {
    // A TesseraError from an older copy of the package: recognised by its marker, without a kind.
    const older = Object.assign(new Error("older copy failed"), { [Symbol.for("tessera.error")]: true });
    expect(TesseraError.isInstance(older)).toBe(true);
    expect(answer(older)).toMatchObject({ status: 500, code: "internal_error" });
    expect(answer(older).message).toContain("older copy failed");
    const odd = new ForeignBackendError("weird-kind" as ErrorKind, "Odd.");
    expect(answer(odd)).toMatchObject({ status: 500, message: "The generation failed: Odd." });
    // Inherited properties of a plain object are not kinds either.
    expect(answer(new ForeignBackendError("toString" as ErrorKind, "Odd.")).status).toBe(500);
    for (const thrown of [null, undefined]) {
      expect(answer(thrown)).toMatchObject({ status: 500, type: "server_error", code: "internal_error" });
    }
  });

  it("names max_tokens when the prompt fits and only max_tokens overflows the context", () => {
    expect(answer(new ContextOverflowError(40, 64, 100))).toMatchObject({
      status: 400,
      message:
        "This model's context holds 64 tokens per request, but the prompt is 40 tokens and max_tokens asks " +
        "for 100 more (140 in all). Lower max_tokens to at most 24.",
      param: "max_tokens",
      code: "context_length_exceeded",
    });
    // A prompt that fills the context alone is the messages' fault, whatever max_tokens is.
    expect(answer(new ContextOverflowError(64, 64, 1)).param).toBe("messages");
    // A lower bound (from the prompt's bytes) is no exact room: never "at most", and the prompt's field.
    const bound = answer(new ContextOverflowError(30, 64, 100, { promptTokensAtLeast: true }));
    expect(bound.param).toBe("messages");
    expect(bound.message).not.toMatch(/at most/);
    expect(bound.message).toMatch(/Shorten the messages, or lower max_tokens\.$/);
    expect(answer(new ContextOverflowError(90, 64)).param).toBe("messages");
    // Without max_tokens, lowering it is no remedy.
    expect(answer(new ContextOverflowError(90, 64)).message).toMatch(
      /but the prompt is 90 tokens\. Shorten the messages\.$/,
    );
  });
});

describe("a grammar the backend refuses", () => {
  it("is named by the request field whose schema made it, not by the library's grammar option", () => {
    const refused = new InvalidOptionError(
      "grammar",
      "a GBNF grammar of at most 262144 bytes (split it into fewer, shorter rules)",
      "a grammar of 271142 bytes",
      { most: 262144, unit: "bytes" },
    );
    for (const field of ["response_format.json_schema.schema", "response_format", "tools"]) {
      const { body } = toErrorResponse(refused, {}, "messages", "max_tokens", field);
      expect(body.error.param).toBe(field);
      expect(body.error.message).toBe(
        `The schema in ${field} makes a grammar of 271142 bytes; constrained decoding takes at most 262144 bytes. Simplify it: fewer properties, alternatives or nesting.`,
      );
    }
    // Without a field to blame (a library caller's own grammar), the library's words stay.
    expect(toErrorResponse(refused).body.error.param).toBeNull();
  });

  it("states the limit the grammar passed from the refusal's own fields, for both limits", () => {
    const refusalOf = (grammar: string) => {
      try {
        checkGrammarLimits(grammar);
      } catch (error) {
        return error;
      }
      throw new Error("the grammar was not refused");
    };
    const tooLarge = refusalOf(`root ::= "${"a".repeat(300 * 1024)}"`);
    expect(toErrorResponse(tooLarge, {}, "messages", "max_tokens", "tools").body.error.message).toContain(
      "; constrained decoding takes at most 262144 bytes.",
    );
    const tooDeep = refusalOf(`root ::= ${"(".repeat(1001)}"a"${")".repeat(1001)}`);
    expect(toErrorResponse(tooDeep, {}, "messages", "max_tokens", "tools").body.error.message).toContain(
      "; constrained decoding takes at most 1000 nested groups.",
    );
  });

  it("leaves out a limit it cannot read or that is not one, and still answers 400 naming the field", () => {
    const refusal = (limit: () => unknown) => {
      const error = new InvalidOptionError("grammar", "a smaller grammar", "a grammar of 9 bytes");
      Object.defineProperty(error, "limit", { get: limit });
      return error;
    };
    const cases: Array<() => unknown> = [
      () => {
        throw new Error("the getter broke");
      },
      () => ({
        get most() {
          throw new Error("most broke");
        },
        unit: "bytes",
      }),
      () => ({ most: Number.NaN, unit: "bytes" }),
      () => ({ most: -1, unit: "" }),
      () => ({ most: "262144", unit: "bytes" }),
    ];
    for (const limit of cases) {
      const { status, body } = toErrorResponse(
        refusal(limit),
        {},
        "messages",
        "max_tokens",
        "response_format",
      );
      expect(status).toBe(400);
      expect(body.error.param).toBe("response_format");
      expect(body.error.message).toBe(
        "The schema in response_format makes a grammar of 9 bytes. Simplify it: fewer properties, alternatives or nesting.",
      );
    }
    // Only a refusal with a limit carries the field at all.
    expect(Object.hasOwn(new InvalidOptionError("topK", "an integer", "x"), "limit")).toBe(false);
  });

  it("blames the tools for a tool schema the grammar cannot enforce, not response_format", () => {
    const unsupported = new UnsupportedJsonSchemaError("#/properties/x", "not", "negation");
    expect(toErrorResponse(unsupported, {}, "messages", "max_tokens", "tools").body.error.param).toBe(
      "tools",
    );
    expect(toErrorResponse(unsupported).body.error.param).toBe("response_format");
  });
});
