import type { ErrorKind } from "./error-kind.js";
import { hasErrorMarker, TesseraError } from "./tessera-error.js";

const marker = Symbol.for("tessera.error.ProviderFieldsTargetError");

/** A component's providerFields name only providers this request does not go to, and no "*" entry. */
export class ProviderFieldsTargetError extends TesseraError {
  readonly [marker] = true;

  override readonly kind: ErrorKind = "invalid-input";
  readonly componentName: string;
  readonly targets: readonly string[];
  readonly provider: string;

  constructor(
    componentName: string,
    targets: readonly string[],
    provider: string,
    accepted: readonly string[],
  ) {
    super(
      `${componentName}'s TemplateRepresentation.providerFields names ${targets.map((target) => `"${target}"`).join(", ")}, ` +
        `but this request goes to ${accepted.map((target) => `"${target}"`).join(" or ")}. ` +
        `Add an entry for ${accepted.map((target) => `"${target}"`).join(" or ")}, or a "*" entry for every provider.`,
    );
    this.name = "ProviderFieldsTargetError";
    this.componentName = componentName;
    this.targets = targets;
    this.provider = provider;
  }

  static override isInstance(error: unknown): error is ProviderFieldsTargetError {
    return hasErrorMarker(error, marker);
  }
}
