// OpenTelemetry spans and metrics through @opentelemetry/api: no-ops until the user registers an SDK.
export { inApplicationSpan } from "./application-span.js";
export {
  applicationScope,
  backendScope,
  GenAi,
  GenAiMetric,
  genAiSemconvVersion,
  SpanName,
  Tessera,
} from "./gen-ai-conventions.js";
export {
  type GenAiOperation,
  GenerationObservation,
  type GenerationObservationStart,
} from "./generation-observation.js";
export { inValidationSpan } from "./validation-span.js";
