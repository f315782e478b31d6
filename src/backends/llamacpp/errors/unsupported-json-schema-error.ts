import type { ErrorKind } from "../../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.UnsupportedJsonSchemaError");

/** A JSON schema (from a zod `format` or a tool's parameters) uses a construct no grammar can enforce here. */
export class UnsupportedJsonSchemaError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "unsupported-schema";

  /** JSON pointer of the offending subschema, e.g. `#/properties/tags/items`. */
  readonly schemaPath: string;
  readonly keyword: string;

  /**
   * `keyword` is what the subschema uses that cannot be enforced; a subschema that lacks what a grammar
   * needs (an "any" schema, with no type) is named by `missing: true`, so the message does not claim it uses
   * a keyword it does not have.
   */
  constructor(schemaPath: string, keyword: string, details: string, options: { missing?: boolean } = {}) {
    super(
      (options.missing === true
        ? `The JSON schema at ${schemaPath} has no "${keyword}", which constrained decoding needs: ${details}. `
        : `The JSON schema at ${schemaPath} uses "${keyword}", which constrained decoding does not support: ${details}. `) +
        "Supported: type, properties, required, additionalProperties, items, prefixItems, min/maxItems, " +
        "min/maxLength, enum, const, anyOf/oneOf, $ref into $defs, and the date, time and date-time formats. " +
        "Simplify the schema (value checks such as minimum or pattern are fine: zod checks them afterwards). " +
        "Nothing was generated.",
    );
    this.name = "UnsupportedJsonSchemaError";
    this.schemaPath = schemaPath;
    this.keyword = keyword;
  }

  static override isInstance(error: unknown): error is UnsupportedJsonSchemaError {
    return hasErrorMarker(error, marker);
  }
}
