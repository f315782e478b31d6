import type { ErrorKind } from "../../core/errors/error-kind.js";
import { hasErrorMarker, TesseraError } from "../../core/errors/tessera-error.js";

const marker = Symbol.for("tessera.error.InspectorTreeTooLargeError");

/**
 * The branch tree is too large to draw as one static page: every branch carries its whole path there, so the
 * page grows with the sum of all path lengths (a hundred forks near the end of a 4k-token branch went past
 * V8's longest string, and stringifying it blocked the server for seconds).
 */
export class InspectorTreeTooLargeError extends TesseraError {
  readonly [marker] = true;
  override readonly kind: ErrorKind = "invalid-input";
  readonly pathTokens: number;
  readonly limit: number;

  constructor(pathTokens: number, limit: number) {
    super(
      `The branch tree holds ${pathTokens} tokens when each branch is drawn with its whole path, over the ` +
        `tree page's limit of ${limit}. Export the tree as JSON (/api/export.json) or single branches as pages ` +
        `(/api/export.html?branch=<id>), or close branches you no longer need.`,
    );
    this.name = "InspectorTreeTooLargeError";
    this.pathTokens = pathTokens;
    this.limit = limit;
  }

  static override isInstance(error: unknown): error is InspectorTreeTooLargeError {
    return hasErrorMarker(error, marker);
  }
}
