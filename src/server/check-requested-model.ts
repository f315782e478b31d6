import { ModelNotFoundError } from "./errors/model-not-found-error.js";

/** Refuses a request naming a model this server does not serve (neither its name nor an alias). */
export function checkRequestedModel(model: string | null | undefined, served: readonly string[]): void {
  if (model == null || served.includes(model)) return;
  throw new ModelNotFoundError(model, served);
}
